#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 held for a tool that cannot bind port 0 itself
/// (tinyproxy, nginx, openssl s_server), or for a port on which nothing
/// must answer. The port is bound with SO_REUSEADDR and never listened on,
/// for as long as the reservation lives: Linux lets a second socket with
/// SO_REUSEADDR bind and listen on it (the tool; all three set it), and
/// gives it to nobody else meanwhile, neither to a bind to port 0 nor as an
/// outgoing connection's local port. Releasing it before the tool starts
/// (bind, read the port, close) would let another process take the port
/// in between.
public final class LoopbackPortReservation: @unchecked Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackPortError(errno: errno) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let failure = errno
            close(descriptor)
            throw LoopbackPortError(errno: failure)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// No port could be bound on 127.0.0.1.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "no free port on 127.0.0.1: errno \(errno)" }
}
