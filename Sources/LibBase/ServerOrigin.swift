/// A server's origin (RFC 6454): scheme, host and port, normalized so that
/// `HTTP://Example.org:80/` and `http://example.org` are the same server.
/// The one type for a server's address on the client: accounts, the
/// keyring, requests and failure messages all spell a server as this does
/// (`hostAndPort`: the port only when it is not the scheme's default).
public struct ServerOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    /// Lower-case; an IPv6 literal without brackets.
    public let host: String
    public let port: Int

    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case notAURL(String)
        case unsupportedScheme(String)
        case hasPath(String)

        public var description: String {
            switch self {
            case .notAURL(let text): return "'\(text)' is not a server URL (expected http://HOST[:PORT] or https://HOST[:PORT])"
            case .unsupportedScheme(let scheme): return "unsupported scheme '\(scheme)': use http or https"
            case .hasPath(let text): return "'\(text)' has a path; give only the server, as in http://HOST:PORT"
            }
        }
    }

    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Parses `http[s]://host[:port][/]`. A path other than `/`, a query, or
    /// user info is refused: the API root is always `/v1`.
    public init(parsing text: String) throws(ParseError) {
        // Searched for by hand, with Characters: splitting on the string
        // "://" went through generic code that cost a twentieth of `lib edit`.
        var separator = text.firstIndex(of: ":" as Character)
        while let colon = separator, !text[colon...].hasPrefix("://") {
            separator = text[text.index(after: colon)...].firstIndex(of: ":" as Character)
        }
        guard let colon = separator else { throw .notAURL(text) }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { throw .hasPath(text) }
        if rest.contains("@" as Character) || rest.isEmpty || rest.hasSuffix(":") { throw .notAURL(text) }
        // What is left is an authority, read as a request URL's is.
        guard let origin = ServerOrigin(requestURL: text),
              origin.host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else { throw .notAURL(text) }
        self = origin
    }

    /// The origin of a request's URL, `scheme://[userinfo@]host[:port][/...]`
    /// (a path, query and user info allowed, an IPv6 literal in brackets);
    /// nil for anything else, including schemes other than http and https.
    public init?(requestURL url: String) {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
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
        var port = scheme == "https" ? 443 : 80
        if let portText, !portText.isEmpty {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = Int(parsed)
        }
        self.init(scheme: scheme, host: host.lowercased(), port: port)
    }

    var isDefaultPort: Bool { port == (scheme == "https" ? 443 : 80) }

    /// `host` or `host:port` (the port only when it is not the scheme's default); IPv6 in brackets.
    public var hostAndPort: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return isDefaultPort ? h : "\(h):\(port)"
    }

    /// `http://host:port`, always with the port, for building request URLs.
    public var url: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h):\(port)"
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return isDefaultPort ? "\(scheme)://\(h)" : "\(scheme)://\(h):\(port)"
    }
}
