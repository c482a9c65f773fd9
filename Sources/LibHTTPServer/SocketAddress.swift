#if canImport(Glibc)
import Glibc
#endif

/// A numeric IPv4 or IPv6 socket address to bind, and the text form of peers.
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 { Int32(storage.ss_family) }

    /// `host:port` for messages, with brackets around an IPv6 host.
    static func display(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Accepts an IPv4 literal, an IPv6 literal with or without brackets
    /// (and with a `%zone`), or `localhost` (bound as 127.0.0.1). Names are
    /// not resolved: a server should listen where it was told, not where DNS says.
    static func resolve(host: String, port: Int) throws(HTTPServerError) -> SocketAddress {
        var literal = host
        if literal.hasPrefix("[") && literal.hasSuffix("]") && literal.count >= 2 {
            literal = String(literal.dropFirst().dropLast())
        }
        if literal.lowercased() == "localhost" { literal = "127.0.0.1" }
        let shown = display(host: literal, port: port)
        guard (0...65_535).contains(port) else {
            throw .invalidAddress(address: shown, reason: "the port must be between 0 and 65535")
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(literal, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let info = list?.pointee, let address = info.ai_addr,
              Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
        else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw .invalidAddress(
                address: shown, reason: "not an IPv4 or IPv6 address, nor localhost (\(reason))")
        }
        var result = SocketAddress()
        withUnsafeMutableBytes(of: &result.storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
        }
        result.length = info.ai_addrlen
        return result
    }

    /// The numeric `address:port` of a peer (`[address]:port` for IPv6).
    static func describe(_ storage: sockaddr_storage, length: socklen_t) -> String {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "unknown" }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let serviceText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return display(host: hostText, port: Int(serviceText) ?? 0)
    }

    /// The port a socket is bound to.
    static func localPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in.self).sin_port)) }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { Int(UInt16(bigEndian: $0.load(as: sockaddr_in6.self).sin6_port)) }
        default:
            return nil
        }
    }
}
