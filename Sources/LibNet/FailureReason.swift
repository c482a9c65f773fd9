import LibBase

/// Why a request failed, as a value code can branch on; `token` is its
/// stable spelling for scripts and tests (`lib-net-check`, a write's last
/// error). The words people read come from `FailureExplanation`.
public enum FailureReason: Sendable, Equatable {
    case offline
    case proxyNoRoute, noRoute
    case dns, dnsProxy
    case proxyRefused, connectionRefused, connectFailed
    case proxyConnectTimeout, connectTimeout, responseTimeout
    case proxyUpstream(status: Int)
    case notLibraryServer, answerTooLarge
    case tlsUntrusted, tlsNameMismatch, tlsHandshake, tlsCABundle
    case connectionLost, notHTTP
    case redirectElsewhere(status: Int), redirect(status: Int)
    case serverError(status: Int, retryAfter: Int?)
    case rateLimited(retryAfter: Int?)
    case unauthorized, libcurlUnavailable, invalidRequest, failed
    /// NetworkManager holds requests back: a captive portal, a connection
    /// still being made, limited connectivity.
    case networkManager(NetworkManagerHold)

    public enum NetworkManagerHold: String, Sendable, Equatable {
        case portal, connecting, limited
    }

    public var token: String {
        switch self {
        case .offline: "offline"
        case .proxyNoRoute: "proxy-no-route"
        case .noRoute: "no-route"
        case .dns: "dns"
        case .dnsProxy: "dns-proxy"
        case .proxyRefused: "proxy-refused"
        case .connectionRefused: "connection-refused"
        case .connectFailed: "connect-failed"
        case .proxyConnectTimeout: "proxy-timeout-connect"
        case .connectTimeout: "timeout-connect"
        case .responseTimeout: "timeout-response"
        case .proxyUpstream(let status): "proxy-upstream \(status)"
        case .notLibraryServer: "not-library-server"
        case .answerTooLarge: "answer-too-large"
        case .tlsUntrusted: "tls-untrusted"
        case .tlsNameMismatch: "tls-name-mismatch"
        case .tlsHandshake: "tls-handshake"
        case .tlsCABundle: "tls-ca-bundle"
        case .connectionLost: "connection-lost"
        case .notHTTP: "not-http"
        case .redirectElsewhere(let status): "redirect-elsewhere \(status)"
        case .redirect(let status): "redirect \(status)"
        case .serverError(let status, let retryAfter): "server-error \(status)" + (retryAfter.map { " retry-after=\($0)" } ?? "")
        case .rateLimited(let retryAfter): "rate-limited" + (retryAfter.map { " retry-after=\($0)" } ?? "")
        case .unauthorized: "unauthorized"
        case .libcurlUnavailable: "libcurl-unavailable"
        case .invalidRequest: "invalid-request"
        case .failed: "failed"
        case .networkManager(let hold): "nm-" + hold.rawValue
        }
    }
    /// The exit code (DESIGN.md, "Exit codes"): 75 when trying again later
    /// may work, 4 when the user must sign in, 1 when something must change first.
    public var exitCode: ExitCode {
        switch self {
        case .unauthorized: .authentication
        case .answerTooLarge, .tlsUntrusted, .tlsHandshake, .tlsCABundle, .notHTTP, .redirect,
             .libcurlUnavailable, .invalidRequest, .failed:
            .failure
        default: .temporaryFailure
        }
    }
}
