import LibBase

/// The one place that turns a failure into what the user reads and the exit
/// code (DESIGN.md, "Path status and failure explanations" and "Exit
/// codes"): plain words, the host named, what was kept.
public struct FailureExplanation: Sendable, Equatable, CustomStringConvertible {
    /// Why, as a value (`reason.token` for scripts: `offline`,
    /// `connection-refused`, `server-error 503 retry-after=5`...).
    public let reason: FailureReason
    /// What happened, in the user's words, without what was kept.
    public let headline: String
    public let exitCode: ExitCode
    /// Writes kept on this device, said after the headline.
    public private(set) var pendingWrites: Int

    /// The sentence(s) for the user: the headline, then what was kept.
    public var message: String {
        guard pendingWrites > 0 else { return headline }
        return headline + (pendingWrites == 1 ? " 1 write is saved on this device." : " \(pendingWrites) writes are saved on this device.")
    }

    /// The same explanation, with `count` writes kept (counted once the push has recorded its answers).
    public func keeping(_ count: Int) -> FailureExplanation {
        var copy = self
        copy.pendingWrites = count
        return copy
    }

    /// Explains `failure` given the path at the time, the account the request
    /// was for (nil: name the host instead), the number of writes kept in the
    /// outbox, and NetworkManager's view when it was available.
    public init(
        failure: TransportFailure, path: PathStatus, account: String?, pendingWrites: Int,
        networkManager: NetworkManagerStatus? = nil
    ) {
        let host = failure.endpoint.host
        let server = failure.endpoint.hostAndPort
        // A name that did not resolve, a route that is missing or a connect
        // that went unanswered all mean "offline" when no route exists at all.
        let offline = path == .unavailable && failure.kind.dependsOnPath
        var reason: FailureReason
        var message: String
        let proxy = failure.proxy
        // A connection that failed is the proxy's when one is in effect (the server was not tried).
        let unreached = proxy.map { "\($0)" } ?? server
        switch failure.kind {
        case _ where offline:
            reason = .offline
            message = "You're offline (no network route to \(host))."
        case .noRoute:
            reason = proxy == nil ? .noRoute : .proxyNoRoute
            message = "Couldn't reach \(unreached): no network route to \(proxy == nil ? "that host" : "it")."
        case .dnsFailure:
            reason = .dns
            message = "Couldn't resolve \(host)."
        case .proxyNotResolved:
            reason = .dnsProxy
            message = proxy.map { "Couldn't resolve the name of \($0)." }
                ?? "Couldn't resolve the proxy set in the environment (https_proxy, http_proxy or all_proxy)."
        case .connectionRefused:
            reason = proxy == nil ? .connectionRefused : .proxyRefused
            let who = proxy == nil ? "the server may be down" : "the proxy may be down (the server was not tried)"
            message = "Couldn't reach \(unreached): connection refused — \(who)."
        case .connectFailed(let problem):
            reason = .connectFailed
            message = "Couldn't reach \(unreached): \(problem)."
        case .connectTimeout:
            reason = proxy == nil ? .connectTimeout : .proxyConnectTimeout
            message = "Couldn't reach \(unreached): timed out after \(Self.seconds(failure.timeout))."
        case .responseTimeout:
            reason = .responseTimeout
            let through = proxy.map { " (through \($0))" } ?? ""
            message = "\(server) accepted the connection\(through) but didn't answer: timed out after \(Self.seconds(failure.timeout))."
        case .proxyCouldNotReachServer(let status):
            reason = .proxyUpstream(status: status)
            let name = proxy.map(\.description) ?? "The proxy"
            message = "\(name.capitalizedFirst) couldn't reach \(server) (it answered \(status) itself): the server may be down, or the proxy may not be allowed to reach it."
        case .notFromLibraryServer(let seen):
            reason = .notLibraryServer
            let who = proxy.map { "a captive portal or \($0) may be answering" } ?? "a captive portal or a proxy may be answering"
            message = "\(server) gave an answer that did not come from the library server (\(who)): \(seen). If the network asks you to sign in, do so, then try again."
        case .answerTooLarge(let limit):
            reason = .answerTooLarge
            message = "\(server) sent an answer larger than lib's limit of \(Self.bytes(limit)) (\(TransportConfiguration.maxAnswerBytesVariable)): lib stopped reading it and kept nothing of it."
        case .tlsUntrusted:
            reason = .tlsUntrusted
            message = "Couldn't connect securely to \(server): its certificate is not trusted. For a self-hosted server, set \(TransportConfiguration.caBundleVariable) to its CA certificate."
        case .tlsNameMismatch:
            reason = .tlsNameMismatch
            message = "Couldn't connect securely to \(server): its certificate is for another name — a captive portal or a proxy may be intercepting (sign in to the network), or the server URL names the wrong host." 
        case .tlsHandshake:
            reason = .tlsHandshake
            message = "Couldn't connect securely to \(server): the TLS handshake failed (is it an HTTPS port?)."
        case .tlsCABundleUnreadable:
            reason = .tlsCABundle
            message = "Couldn't read the CA certificates for \(server) (check \(TransportConfiguration.caBundleVariable))."
        case .connectionLost:
            reason = .connectionLost
            message = proxy.map { "The connection to \(host) through \($0) was lost." } ?? "The connection to \(host) was lost."
        case .notHTTP:
            reason = .notHTTP
            message = "\(server) didn't answer with HTTP: check the server URL (http or https?)."
        case .redirected(let status, let location) where failure.redirectsToAnotherHost(location):
            reason = .redirectElsewhere(status: status)
            message = "\(host) answered \(status) with a redirect to \(location ?? "another host"): a captive portal or a proxy may be intercepting. Sign in to the network, then try again."
        case .redirected(let status, let location):
            reason = .redirect(status: status)
            let target = location.map { " to \($0)" } ?? ""
            message = "\(host) answered \(status) with a redirect\(target); lib doesn't follow redirects: check the server URL."
        case .serverError(let status, let statusReason, let retryAfter):
            reason = .serverError(status: status, retryAfter: retryAfter?.seconds)
            let phrase = statusReason.isEmpty ? "" : " \(statusReason)"
            message = "\(host) answered \(status)\(phrase): " + Self.retryAdvice(retryAfter)
        case .rateLimited(let retryAfter):
            reason = .rateLimited(retryAfter: retryAfter?.seconds)
            message = "\(host) answered 429 Too Many Requests: " + Self.retryAdvice(retryAfter)
        case .unauthorized:
            reason = .unauthorized
            message = "Your session for \(account ?? host) has expired: run `lib login`."
        case .libcurlUnavailable(let loaderReason):
            reason = .libcurlUnavailable
            message = "libcurl could not be loaded (\(loaderReason)): install libcurl4."
        case .invalidRequest(let problem):
            reason = .invalidRequest
            message = "Couldn't send the request to \(server): \(problem)."
        case .other(let problem):
            reason = .failed
            message = "Couldn't reach \(server): \(problem)."
        }
        // NetworkManager's word leads: a portal or a half-made connection
        // explains the failure better than its symptom, and it passes.
        if let networkManager, failure.kind.mayBeTheNetwork, let held = Self.networkManagerSays(networkManager) {
            reason = held.reason
            message = held.sentence + " " + message
        }
        self.reason = reason
        self.headline = message
        self.exitCode = reason.exitCode
        self.pendingWrites = pendingWrites
    }

    /// Probes the path when it matters to the failure (never otherwise),
    /// asks NetworkManager (only now, after a failure) and explains.
    public static func diagnose(
        _ failure: TransportFailure, account: String?, pendingWrites: Int,
        networkManager: any NetworkManagerSource = NoNetworkManager()
    ) -> FailureExplanation {
        var path = PathStatus.unknown
        if failure.kind.dependsOnPath {
            if let address = failure.diagnostics?.remoteAddress {
                path = PathProbe.status(forAddresses: [address], port: UInt16(failure.endpoint.port))
            } else {
                path = PathProbe.status(for: failure.endpoint.host, port: UInt16(failure.endpoint.port))
            }
        }
        let status = failure.kind.mayBeTheNetwork ? networkManager.currentStatus() : nil
        return FailureExplanation(
            failure: failure, path: path, account: account, pendingWrites: pendingWrites, networkManager: status)
    }

    public var description: String { message }

    private static func retryAdvice(_ retryAfter: RetryAfter?) -> String {
        guard let retryAfter else { return "try again later." }
        return "try again in \(wait(seconds: retryAfter.seconds))."
    }

    /// A wait as people say it: "45 s", "3 min", "2 h", "11 days".
    public static func wait(seconds: Int) -> String {
        switch seconds {
        case ..<120: return "\(max(0, seconds)) s"
        case ..<7200: return "\(seconds / 60) min"
        case ..<172_800: return "\(seconds / 3600) h"
        default: return "\(seconds / 86_400) days"
        }
    }

    /// "8 MB", "512 KB", "100 bytes" (powers of 1024, as the variable takes them).
    static func bytes(_ count: Int) -> String {
        if count >= 1024 * 1024 && count % (1024 * 1024) == 0 { return "\(count / (1024 * 1024)) MB" }
        if count >= 1024 && count % 1024 == 0 { return "\(count / 1024) KB" }
        return "\(count) bytes"
    }

    /// "1 s", "1.5 s": whole seconds without decimals.
    static func seconds(_ duration: Duration?) -> String {
        guard let duration else { return "the time limit" }
        // Rounded to the nearest tenth: a budget's last 1.99 s is "2 s".
        let (whole, attoseconds) = duration.components
        let total = Int(whole) * 10 + Int((attoseconds + 50_000_000_000_000_000) / 100_000_000_000_000_000)
        return total % 10 == 0 ? "\(total / 10) s" : "\(total / 10).\(total % 10) s"
    }

    /// What NetworkManager says when it holds requests back (see
    /// `NetworkManagerStatus.holdsRequests`), with its reason token.
    static func networkManagerSays(_ status: NetworkManagerStatus) -> (reason: FailureReason, sentence: String)? {
        let hold: FailureReason.NetworkManagerHold
        if status.connectivity == .captivePortal {
            hold = .portal
        } else if status.state == .connecting {
            hold = .connecting
        } else if status.connectivity == .limited {
            hold = .limited
        } else {
            return nil
        }
        return (.networkManager(hold), report(of: hold) + ": " + advice(for: hold))
    }

    /// "NetworkManager reports a captive portal": what holds requests back.
    public static func report(of hold: FailureReason.NetworkManagerHold) -> String {
        switch hold {
        case .portal: "NetworkManager reports a captive portal"
        case .connecting: "NetworkManager reports that the network is still connecting"
        case .limited: "NetworkManager reports limited connectivity"
        }
    }

    private static func advice(for hold: FailureReason.NetworkManagerHold) -> String {
        switch hold {
        case .portal: "sign in to the network."
        case .connecting: "try again once it is up."
        case .limited: "the network does not reach the internet."
        }
    }
}

extension TransportFailure.Kind {
    /// Failures that the network between lib and the server can cause (a
    /// portal, a half-made connection), and so are worth NetworkManager's
    /// word: all but those lib or the server's answer explain by themselves.
    var mayBeTheNetwork: Bool {
        switch self {
        case .unauthorized, .libcurlUnavailable, .invalidRequest: return false
        default: return true
        }
    }

    /// Failures that a missing route can cause, and so are explained as
    /// "offline" when the path is unavailable.
    var dependsOnPath: Bool {
        switch self {
        case .noRoute, .dnsFailure, .proxyNotResolved, .connectTimeout: return true
        default: return false
        }
    }
}
