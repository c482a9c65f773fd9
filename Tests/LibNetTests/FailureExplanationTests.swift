import Testing

@testable import LibNet
import LibBase

@Suite struct FailureExplanationTests {
    static let server = ServerOrigin(scheme: "https", host: "books.example", port: 8443)

    func explain(
        _ kind: TransportFailure.Kind, path: PathStatus = .available, timeout: Duration? = nil, account: String? = "alice@books.example",
        pending: Int = 0, networkManager: NetworkManagerStatus? = nil
    ) -> FailureExplanation {
        FailureExplanation(
            failure: TransportFailure(kind: kind, endpoint: Self.server, timeout: timeout), path: path, account: account,
            pendingWrites: pending, networkManager: networkManager)
    }

    static let proxy = ProxySetting.forEndpoint(server, environment: ["https_proxy": "http://user:secret@proxy.example:3128"])

    func throughProxy(_ kind: TransportFailure.Kind, timeout: Duration? = nil) -> FailureExplanation {
        FailureExplanation(
            failure: TransportFailure(kind: kind, endpoint: Self.server, timeout: timeout, proxy: Self.proxy), path: .available,
            account: "alice@books.example", pendingWrites: 1)
    }

    /// With a proxy in effect, each failure says whose it is, and never the
    /// proxy's credentials.
    @Test func proxyFailuresNameTheProxy() {
        let cases: [(FailureExplanation, String, String, Int32)] = [
            (throughProxy(.connectionRefused), "proxy-refused", "Couldn't reach the proxy http://proxy.example:3128 (set in https_proxy): connection refused — the proxy may be down (the server was not tried). 1 write is saved on this device.", 75),
            (throughProxy(.connectTimeout, timeout: .seconds(2)), "proxy-timeout-connect", "Couldn't reach the proxy http://proxy.example:3128 (set in https_proxy): timed out after 2 s. 1 write is saved on this device.", 75),
            (throughProxy(.proxyNotResolved), "dns-proxy", "Couldn't resolve the name of the proxy http://proxy.example:3128 (set in https_proxy). 1 write is saved on this device.", 75),
            (throughProxy(.proxyCouldNotReachServer(status: 502)), "proxy-upstream 502", "The proxy http://proxy.example:3128 (set in https_proxy) couldn't reach books.example:8443 (it answered 502 itself): the server may be down, or the proxy may not be allowed to reach it. 1 write is saved on this device.", 75),
            (throughProxy(.connectionLost), "connection-lost", "The connection to books.example through the proxy http://proxy.example:3128 (set in https_proxy) was lost. 1 write is saved on this device.", 75),
        ]
        for (explanation, reason, message, code) in cases {
            #expect(explanation.reason.token == reason)
            #expect(explanation.message == message)
            #expect(explanation.exitCode.rawValue == code, "\(reason)")
            #expect(!explanation.message.contains("secret"))
        }
    }

    /// A server on this machine bypasses the environment's proxy unless
    /// LIB_PROXY_LOOPBACK=1 (issue 39).
    @Test func loopbackServersBypassTheProxyUnlessAskedOtherwise() {
        for host in ["127.0.0.1", "127.8.9.1", "localhost", "LOCALHOST", "lib.localhost", "::1"] {
            let origin = ServerOrigin(scheme: "http", host: host, port: 8080)
            #expect(ProxySetting.forEndpoint(origin, environment: ["http_proxy": "http://p:1"]) == nil, "\(host)")
            #expect(ProxySetting.forEndpoint(origin, environment: ["http_proxy": "http://p:1", "LIB_PROXY_LOOPBACK": "1"]) != nil, "\(host)")
        }
        for host in ["128.0.0.1", "10.0.0.1", "localhost.example", "books.example"] {
            let origin = ServerOrigin(scheme: "http", host: host, port: 8080)
            #expect(ProxySetting.forEndpoint(origin, environment: ["http_proxy": "http://p:1"]) != nil, "\(host)")
        }
    }

    @Test func proxyIsChosenWithCurlsRules() {
        let http = ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
        let loopback = ["LIB_PROXY_LOOPBACK": "1"]
        #expect(ProxySetting.forEndpoint(http, environment: loopback.merging(["HTTP_PROXY": "http://p:1"]) { $1 }) == nil, "curl ignores HTTP_PROXY")
        #expect(ProxySetting.forEndpoint(http, environment: loopback.merging(["http_proxy": "p:1"]) { $1 })?.display == "http://p:1")
        #expect(ProxySetting.forEndpoint(http, environment: loopback.merging(["ALL_PROXY": "socks5h://p:1"]) { $1 })?.variable == "ALL_PROXY")
        #expect(ProxySetting.forEndpoint(Self.server, environment: ["HTTPS_PROXY": "http://p:1"])?.variable == "HTTPS_PROXY")
        #expect(ProxySetting.forEndpoint(Self.server, environment: ["http_proxy": "http://p:1"]) == nil)
        for noProxy in ["*", "books.example", ".example", "example", "other, books.example"] {
            #expect(ProxySetting.forEndpoint(Self.server, environment: ["https_proxy": "p:1", "no_proxy": noProxy]) == nil, "\(noProxy)")
        }
        #expect(ProxySetting.forEndpoint(Self.server, environment: ["https_proxy": "p:1", "no_proxy": "ooks.example"]) != nil)
        #expect(ProxySetting.forEndpoint(http, environment: loopback.merging(["http_proxy": "p:1", "NO_PROXY": "127.0.0.0/8"]) { $1 }) == nil)
        #expect(ProxySetting.forEndpoint(http, environment: loopback.merging(["http_proxy": "p:1", "no_proxy": "10.0.0.0/8"]) { $1 }) != nil)
    }

    @Test func sentencesAndExitCodes() {
        let cases: [(FailureExplanation, String, String, Int32)] = [
            (explain(.noRoute, path: .unavailable), "offline", "You're offline (no network route to books.example).", 75),
            (explain(.dnsFailure, path: .unavailable), "offline", "You're offline (no network route to books.example).", 75),
            (explain(.connectTimeout, path: .unavailable, timeout: .seconds(10)), "offline", "You're offline (no network route to books.example).", 75),
            (explain(.noRoute), "no-route", "Couldn't reach books.example:8443: no network route to that host.", 75),
            (explain(.dnsFailure), "dns", "Couldn't resolve books.example.", 75),
            (explain(.dnsFailure, path: .unknown), "dns", "Couldn't resolve books.example.", 75),
            (explain(.connectionRefused, path: .unavailable), "connection-refused", "Couldn't reach books.example:8443: connection refused — the server may be down.", 75),
            (explain(.connectTimeout, timeout: .milliseconds(1500)), "timeout-connect", "Couldn't reach books.example:8443: timed out after 1.5 s.", 75),
            (explain(.responseTimeout, timeout: .seconds(30)), "timeout-response", "books.example:8443 accepted the connection but didn't answer: timed out after 30 s.", 75),
            (explain(.tlsUntrusted), "tls-untrusted", "Couldn't connect securely to books.example:8443: its certificate is not trusted. For a self-hosted server, set LIB_CA_BUNDLE to its CA certificate.", 1),
            (explain(.tlsNameMismatch), "tls-name-mismatch", "Couldn't connect securely to books.example:8443: its certificate is for another name — a captive portal or a proxy may be intercepting (sign in to the network), or the server URL names the wrong host.", 75),
            (explain(.notFromLibraryServer(seen: "204 without this write's Idempotency-Key")), "not-library-server", "books.example:8443 gave an answer that did not come from the library server (a captive portal or a proxy may be answering): 204 without this write's Idempotency-Key. If the network asks you to sign in, do so, then try again.", 75),
            (explain(.answerTooLarge(limit: 8 * 1024 * 1024)), "answer-too-large", "books.example:8443 sent an answer larger than lib's limit of 8 MB (LIB_MAX_ANSWER_BYTES): lib stopped reading it and kept nothing of it.", 1),
            (explain(.redirected(status: 302, location: "http://portal.example/login")), "redirect-elsewhere 302", "books.example answered 302 with a redirect to http://portal.example/login: a captive portal or a proxy may be intercepting. Sign in to the network, then try again.", 75),
            (explain(.redirected(status: 301, location: "https://books.example:8443/v1/")), "redirect 301", "books.example answered 301 with a redirect to https://books.example:8443/v1/; lib doesn't follow redirects: check the server URL.", 1),
            (explain(.redirected(status: 302, location: "/login")), "redirect 302", "books.example answered 302 with a redirect to /login; lib doesn't follow redirects: check the server URL.", 1),
            (explain(.serverError(status: 503, reason: "Service Unavailable", retryAfter: RetryAfter(seconds: 999_999))), "server-error 503 retry-after=999999", "books.example answered 503 Service Unavailable: try again in 11 days.", 75),
            (explain(.rateLimited(retryAfter: RetryAfter(seconds: 600))), "rate-limited retry-after=600", "books.example answered 429 Too Many Requests: try again in 10 min.", 75),
            (explain(.tlsHandshake), "tls-handshake", "Couldn't connect securely to books.example:8443: the TLS handshake failed (is it an HTTPS port?).", 1),
            (explain(.connectionLost), "connection-lost", "The connection to books.example was lost.", 75),
            (explain(.serverError(status: 503, reason: "Service Unavailable", retryAfter: RetryAfter(seconds: 5))), "server-error 503 retry-after=5", "books.example answered 503 Service Unavailable: try again in 5 s.", 75),
            (explain(.serverError(status: 502, reason: "", retryAfter: nil)), "server-error 502", "books.example answered 502: try again later.", 75),
            (explain(.rateLimited(retryAfter: nil)), "rate-limited", "books.example answered 429 Too Many Requests: try again later.", 75),
            (explain(.unauthorized), "unauthorized", "Your session for alice@books.example has expired: run `lib login`.", 4),
            (explain(.unauthorized, account: nil), "unauthorized", "Your session for books.example has expired: run `lib login`.", 4),
            (explain(.libcurlUnavailable(reason: "libcurl.so.4: cannot open shared object file")), "libcurl-unavailable", "libcurl could not be loaded (libcurl.so.4: cannot open shared object file): install libcurl4.", 1),
        ]
        for (explanation, reason, message, code) in cases {
            #expect(explanation.reason.token == reason)
            #expect(explanation.message == message)
            #expect(explanation.exitCode.rawValue == code, "\(reason)")
        }
    }

    @Test func pendingWritesAreCounted() {
        #expect(explain(.connectionLost, pending: 0).message == "The connection to books.example was lost.")
        #expect(explain(.connectionLost, pending: 1).message == "The connection to books.example was lost. 1 write is saved on this device.")
        #expect(explain(.noRoute, path: .unavailable, pending: 12).message == "You're offline (no network route to books.example). 12 writes are saved on this device.")
        #expect(explain(.tlsUntrusted, pending: 2).message.hasSuffix(" 2 writes are saved on this device."))
    }

    @Test func networkManagerLeadsWhenItHoldsTheNetworkBack() {
        let portal = NetworkManagerStatus(nmState: 70, nmConnectivity: 2, nmMetered: 4)
        #expect(portal.connectivity == .captivePortal && !portal.metered && portal.holdsRequests)
        let timedOut = explain(.connectTimeout, timeout: .seconds(5), pending: 2, networkManager: portal)
        #expect(timedOut.message == "NetworkManager reports a captive portal: sign in to the network. Couldn't reach books.example:8443: timed out after 5 s. 2 writes are saved on this device.")
        #expect(timedOut.reason == .networkManager(.portal) && timedOut.exitCode == .temporaryFailure)
        #expect(explain(.connectionRefused, networkManager: portal).message
            == "NetworkManager reports a captive portal: sign in to the network. Couldn't reach books.example:8443: connection refused — the server may be down.")
        // A portal answering in the server's stead: a TLS failure is then the network's, and passes (75).
        #expect(explain(.tlsUntrusted, networkManager: portal).exitCode == .temporaryFailure)

        let connecting = NetworkManagerStatus(nmState: 40, nmConnectivity: 1, nmMetered: 1)
        #expect(connecting.metered && connecting.holdsRequests)
        #expect(explain(.noRoute, path: .unavailable, networkManager: connecting).message
            == "NetworkManager reports that the network is still connecting: try again once it is up. You're offline (no network route to books.example).")
        let limited = NetworkManagerStatus(nmState: 70, nmConnectivity: 3, nmMetered: 4)
        #expect(explain(.dnsFailure, networkManager: limited).message
            == "NetworkManager reports limited connectivity: the network does not reach the internet. Couldn't resolve books.example.")

        // Full connectivity adds nothing; nor does NetworkManager to what the server said itself.
        let full = NetworkManagerStatus(nmState: 70, nmConnectivity: 4, nmMetered: 1)
        #expect(!full.holdsRequests)
        #expect(explain(.connectionRefused, networkManager: full).message == explain(.connectionRefused).message)
        #expect(explain(.unauthorized, networkManager: portal).message == explain(.unauthorized).message)
        #expect(NoNetworkManager().currentStatus() == nil)
    }

    @Test func temporaryMatchesExitCode75() {
        let kinds: [TransportFailure.Kind] = [
            .noRoute, .dnsFailure, .connectionRefused, .connectTimeout, .responseTimeout, .tlsUntrusted, .tlsNameMismatch,
            .tlsHandshake, .connectionLost, .notHTTP, .serverError(status: 500, reason: "", retryAfter: nil),
            .rateLimited(retryAfter: nil), .unauthorized, .redirected(status: 301, location: nil),
        ]
        for kind in kinds {
            let failure = TransportFailure(kind: kind, endpoint: Self.server)
            #expect(failure.isTemporary == (explain(kind).exitCode == .temporaryFailure), "\(kind)")
        }
    }
}
