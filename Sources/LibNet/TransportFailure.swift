import LibBase

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
        /// An answer that does not prove it came from the library server
        /// (HTML where JSON was expected, a write's answer without its
        /// Idempotency-Key, a document without an ETag, cut JSON...): a
        /// captive portal or a proxy may be answering. `seen` says what came,
        /// e.g. "200 text/html".
        case notFromLibraryServer(seen: String)
        /// The answer's body was longer than the transport's limit; the
        /// transfer was stopped there.
        case answerTooLarge(limit: Int)
        /// The proxy in effect answered the request itself with an error:
        /// its CONNECT answer, or a 5xx that is not the server's.
        case proxyCouldNotReachServer(status: Int)
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
        /// connect() failed for a reason the errno does not tell (libcurl
        /// lost it, as on a resend over a new connection): temporary, with
        /// libcurl's wording.
        case connectFailed(reason: String)
        /// Any other libcurl failure, with libcurl's wording.
        case other(reason: String)
    }

    public var kind: Kind
    /// The server the request was for.
    public var endpoint: ServerOrigin
    /// The timeout that ran out, for the two timeout kinds.
    public var timeout: Duration?
    /// What libcurl reported, when the failure came from libcurl.
    public var diagnostics: CurlDiagnostics?
    /// The proxy in effect for the request, if any: connection failures are
    /// then the proxy's, not the server's.
    public var proxy: ProxySetting?

    public init(
        kind: Kind, endpoint: ServerOrigin, timeout: Duration? = nil, diagnostics: CurlDiagnostics? = nil,
        proxy: ProxySetting? = nil
    ) {
        self.kind = kind
        self.endpoint = endpoint
        self.timeout = timeout
        self.diagnostics = diagnostics
        self.proxy = proxy
    }

    /// The failure an HTTP answer stands for, or nil when the answer is one
    /// the caller handles (2xx, 304, 4xx other than 401 and 429).
    public init?(response: HTTPResponse, endpoint: ServerOrigin) {
        let kind: Kind
        switch response.status {
        case 401: kind = .unauthorized
        case 429: kind = .rateLimited(retryAfter: response.retryAfter)
        case 500...599 where response.proxy != nil && !response.isProblemJSON:
            // The library server's errors are problem+json; a proxy's own
            // (tinyproxy's "Unable to connect", nginx's 502) are pages.
            kind = .proxyCouldNotReachServer(status: response.status)
        case 500...599:
            kind = .serverError(status: response.status, reason: response.reason, retryAfter: response.retryAfter)
        case 300...399 where response.status != 304:
            kind = .redirected(status: response.status, location: response.headers["Location"])
        default: return nil
        }
        self.init(kind: kind, endpoint: endpoint, proxy: response.proxy)
    }

    /// Whether trying again later may succeed (the cases that exit 75).
    public var isTemporary: Bool {
        switch kind {
        case .noRoute, .dnsFailure, .proxyNotResolved, .connectionRefused, .connectFailed, .connectTimeout, .responseTimeout,
            .connectionLost, .serverError, .rateLimited, .notFromLibraryServer, .proxyCouldNotReachServer:
            return true
        case .tlsNameMismatch:
            // A certificate for another name is what an intercepting portal
            // or proxy presents; it heals once the user signs in.
            return true
        case .redirected(_, let location):
            return redirectsToAnotherHost(location)
        case .tlsUntrusted, .tlsHandshake, .tlsCABundleUnreadable, .notHTTP, .answerTooLarge,
            .unauthorized, .libcurlUnavailable, .invalidRequest, .other:
            return false
        }
    }

    /// Whether the request may have reached the server: false only when it
    /// surely did not (no connection was made, or none on which its bytes
    /// were written), so that a write that failed so was never sent. A
    /// failure to connect after libcurl wrote the request on a kept-alive
    /// connection that then died (libcurl resends on a new one) was sent.
    public var mayHaveReachedServer: Bool {
        if let diagnostics, diagnostics.requestBytes > 0 { return true }
        switch kind {
        case .noRoute, .dnsFailure, .proxyNotResolved, .connectionRefused, .connectFailed, .connectTimeout, .tlsUntrusted,
            .tlsNameMismatch, .tlsHandshake, .tlsCABundleUnreadable, .libcurlUnavailable, .invalidRequest:
            return false
        case .responseTimeout, .connectionLost, .notHTTP, .notFromLibraryServer, .answerTooLarge,
            .proxyCouldNotReachServer, .redirected, .serverError, .rateLimited, .unauthorized, .other:
            return true
        }
    }

    /// Whether a redirect's `Location` names another host than the
    /// server's (a relative one stays on the server): the mark of a captive
    /// portal's sign-in page, not of a wrong server URL.
    public func redirectsToAnotherHost(_ location: String?) -> Bool {
        guard let location, let target = ServerOrigin(requestURL: location) else { return false }
        return target.host.lowercased() != endpoint.host.lowercased()
    }

    /// For logs: the kind, the server and libcurl's numbers. Never a header.
    public var description: String {
        var text = "\(kind) (\(endpoint))"
        if let diagnostics { text += " [\(diagnostics)]" }
        return text
    }
}
