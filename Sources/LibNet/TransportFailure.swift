/// Why a request did not produce a usable answer: every transport outcome
/// and every HTTP status that means "not now" or "not you" becomes one of
/// these. `FailureExplanation` turns it into the user's sentence.
public struct TransportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the terms the user's explanation needs.
    public enum Kind: Sendable, Hashable {
        /// connect() found no route (ENETUNREACH, EHOSTUNREACH).
        case noRoute
        /// The host name did not resolve (or resolving timed out).
        case dnsFailure
        /// The proxy named in the environment did not resolve.
        case proxyNotResolved
        /// The host answered the connection attempt with a reset.
        case connectionRefused
        /// No connection within the connect timeout.
        case connectTimeout
        /// Connected, but the answer did not complete within the total timeout.
        case responseTimeout
        /// The server's certificate does not chain to a trusted CA.
        case tlsUntrusted
        /// The certificate is valid but issued for another name.
        case tlsNameMismatch
        /// TLS failed before certificates mattered (e.g. not a TLS port).
        case tlsHandshake
        /// The configured CA bundle could not be read.
        case tlsCABundleUnreadable
        /// The connection closed or reset before the answer was complete.
        case connectionLost
        /// The peer answered, but not with HTTP.
        case notHTTP
        /// A 3xx answer: redirects are never followed, so the Authorization
        /// header can never reach another host.
        case redirected(status: Int, location: String?)
        /// 5xx, with the server's Retry-After when it sent one.
        case serverError(status: Int, reason: String, retryAfter: RetryAfter?)
        /// 429 Too Many Requests.
        case rateLimited(retryAfter: RetryAfter?)
        /// 401: the token was refused.
        case unauthorized
        /// libcurl could not be loaded; the reason is dlopen's.
        case libcurlUnavailable(reason: String)
        /// The request could not be made as given (bad URL, header with a newline).
        case invalidRequest(reason: String)
        /// Any other libcurl failure, with libcurl's wording.
        case other(reason: String)
    }

    public var kind: Kind
    /// The server the request was for.
    public var endpoint: ServerEndpoint
    /// The timeout that ran out, for the two timeout kinds.
    public var timeout: Duration?
    /// What libcurl reported, when the failure came from libcurl.
    public var diagnostics: CurlDiagnostics?

    public init(kind: Kind, endpoint: ServerEndpoint, timeout: Duration? = nil, diagnostics: CurlDiagnostics? = nil) {
        self.kind = kind
        self.endpoint = endpoint
        self.timeout = timeout
        self.diagnostics = diagnostics
    }

    /// The failure an HTTP answer stands for, or nil when the answer is one
    /// the caller handles (2xx, 304, 4xx other than 401 and 429).
    public init?(response: HTTPResponse, endpoint: ServerEndpoint) {
        let kind: Kind
        switch response.status {
        case 401: kind = .unauthorized
        case 429: kind = .rateLimited(retryAfter: response.retryAfter)
        case 500...599:
            kind = .serverError(status: response.status, reason: response.reason, retryAfter: response.retryAfter)
        case 300...399 where response.status != 304:
            kind = .redirected(status: response.status, location: response.headers["Location"])
        default: return nil
        }
        self.init(kind: kind, endpoint: endpoint)
    }

    /// Whether trying again later may succeed (the cases that exit 75).
    public var isTemporary: Bool {
        switch kind {
        case .noRoute, .dnsFailure, .proxyNotResolved, .connectionRefused, .connectTimeout, .responseTimeout,
            .connectionLost, .serverError, .rateLimited:
            return true
        case .tlsUntrusted, .tlsNameMismatch, .tlsHandshake, .tlsCABundleUnreadable, .notHTTP, .redirected,
            .unauthorized, .libcurlUnavailable, .invalidRequest, .other:
            return false
        }
    }

    /// For logs: the kind, the server and libcurl's numbers. Never a header.
    public var description: String {
        var text = "\(kind) (\(endpoint))"
        if let diagnostics { text += " [\(diagnostics)]" }
        return text
    }
}
