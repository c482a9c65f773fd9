#if canImport(Glibc)
import Glibc
#endif

/// `accept4(..., SOCK_CLOEXEC)`, so that an accepted socket never leaks into
/// a child process. Swift's Glibc module does not declare accept4 (glibc
/// hides it behind _GNU_SOURCE), so it is looked up in libc at run time.
enum Accept {
    private typealias Accept4 = @convention(c) (
        Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
    ) -> Int32

    private static let accept4: Accept4? = {
        guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "accept4") else { return nil }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    /// The new descriptor, or -1 with errno set.
    static func connection(on fd: Int32, peer: UnsafeMutablePointer<sockaddr>, length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        if let accept4 {
            return accept4(fd, peer, length, Int32(SOCK_CLOEXEC.rawValue))
        }
        let client = accept(fd, peer, length)
        if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
        return client
    }
}
