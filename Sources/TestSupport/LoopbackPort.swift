#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that was free a moment ago: bound to port 0,
/// read back, released. For a server a test starts that cannot take port 0.
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw LoopbackPortError(errno: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// No port could be bound on 127.0.0.1.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "no free port on 127.0.0.1: errno \(errno)" }
}
