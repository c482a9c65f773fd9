/// The scheme, host and port a request goes to, as named in its URL: what
/// failure messages name ("HOST:PORT") and what the path probe looks up.
public struct ServerEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host as written, without the brackets of an IPv6 literal.
    public let host: String
    /// The explicit port, or the scheme's default (80, 443).
    public let port: UInt16

    public init(scheme: String, host: String, port: UInt16) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Parses `scheme://[userinfo@]host[:port][/...]`, where host may be an
    /// IPv6 literal in brackets. Returns nil for anything else, including
    /// schemes other than http and https.
    public init?(url: String) {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        let defaultPort: UInt16
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        var authority = url[url.index(colon, offsetBy: 3)...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = authority[..<end]
        }
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = parsed
        }
        self.init(scheme: scheme, host: String(host), port: port)
    }

    /// `HOST:PORT`, with an IPv6 literal in brackets: `[2001:db8::1]:443`.
    public var hostAndPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var description: String { "\(scheme)://\(hostAndPort)" }
}
