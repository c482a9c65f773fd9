import Glibc

/// Asks the kernel whether a route to an address exists, by connect()ing a
/// UDP socket: connect() on a datagram socket only does the route lookup
/// and sends nothing (udp(7)). About as cheap as a system call gets.
///
/// Never use it to gate a request (send the request; see DESIGN.md): use it
/// to explain a failure and to time a retry.
public enum PathProbe {
    /// Addresses that route like any global address, used when the server's
    /// own addresses are unknown (a host name that has not resolved):
    /// TEST-NET-1 (RFC 5737) and the IPv6 documentation prefix (RFC 3849).
    public static let documentationAddresses = ["192.0.2.1", "2001:db8::1"]

    /// The path to `host`: its own route if it is an IP literal, otherwise
    /// the route to the documentation addresses (a default route). Never
    /// does DNS, which may hang when offline.
    public static func status(for host: String, port: UInt16 = 443) -> PathStatus {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if isIPLiteral(literal) {
            return status(forAddresses: [literal], port: port)
        }
        return status(forAddresses: documentationAddresses, port: port)
    }

    /// Available when any address has a route; unavailable when none has
    /// and at least one lookup said so (ENETUNREACH, EHOSTUNREACH, EACCES,
    /// EINVAL); unknown otherwise (no socket, or not an address).
    public static func status(forAddresses addresses: [String], port: UInt16 = 443) -> PathStatus {
        var sawUnreachable = false
        for address in addresses {
            switch routeLookup(address, port: port) {
            case .available: return .available
            case .unavailable: sawUnreachable = true
            case .unknown: continue
            }
        }
        return sawUnreachable ? .unavailable : .unknown
    }

    /// Whether `text` is a numeric IPv4 or IPv6 address.
    public static func isIPLiteral(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// `connectDatagram` with a `sockaddr_in` or `sockaddr_in6`.
    private static func connectDatagram<Address>(family: Int32, to address: inout Address) -> PathStatus {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connectDatagram(family: family, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    private static func routeLookup(_ address: String, port: UInt16) -> PathStatus {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return connectDatagram(family: AF_INET, to: &v4)
        }
        if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            return connectDatagram(family: AF_INET6, to: &v6)
        }
        return .unknown
    }

    private static func connectDatagram(family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
        -> PathStatus
    {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        if connect(fd, address, length) == 0 { return .available }
        switch errno {
        case ENETUNREACH, EHOSTUNREACH, EACCES, EINVAL, EPERM: return .unavailable
        default: return .unknown
        }
    }
}
