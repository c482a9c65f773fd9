import Testing

@testable import LibNet

@Suite struct FailureExplanationTests {
    static let server = ServerEndpoint(scheme: "https", host: "books.example", port: 8443)

    func explain(
        _ kind: TransportFailure.Kind, path: PathStatus = .available, timeout: Duration? = nil, account: String? = "alice@books.example",
        pending: Int = 0, networkManager: NetworkManagerStatus? = nil
    ) -> FailureExplanation {
        FailureExplanation(
            failure: TransportFailure(kind: kind, endpoint: Self.server, timeout: timeout), path: path, account: account,
            pendingWrites: pending, networkManager: networkManager)
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
            (explain(.tlsNameMismatch), "tls-name-mismatch", "Couldn't connect securely to books.example:8443: its certificate is for another name.", 1),
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
            #expect(explanation.reason == reason)
            #expect(explanation.message == message)
            #expect(explanation.exitCode == code, "\(reason)")
        }
    }

    @Test func pendingWritesAreCounted() {
        #expect(explain(.connectionLost, pending: 0).message == "The connection to books.example was lost.")
        #expect(explain(.connectionLost, pending: 1).message == "The connection to books.example was lost. 1 write is saved on this device.")
        #expect(explain(.noRoute, path: .unavailable, pending: 12).message == "You're offline (no network route to books.example). 12 writes are saved on this device.")
        #expect(explain(.tlsUntrusted, pending: 2).message.hasSuffix(" 2 writes are saved on this device."))
    }

    @Test func networkManagerAddsDetailOnlyToPathFailures() {
        let portal = NetworkManagerStatus(nmState: 70, nmConnectivity: 2, nmMetered: 4)
        #expect(portal.connectivity == .captivePortal && !portal.metered)
        #expect(explain(.connectTimeout, timeout: .seconds(5), networkManager: portal).message
            == "Couldn't reach books.example:8443: timed out after 5 s. The network wants a sign-in first (captive portal).")
        let connecting = NetworkManagerStatus(nmState: 40, nmConnectivity: 1, nmMetered: 1)
        #expect(connecting.metered)
        #expect(explain(.noRoute, path: .unavailable, networkManager: connecting).message
            == "You're offline (no network route to books.example). The network is still connecting.")
        #expect(explain(.connectionRefused, networkManager: portal).message
            == "Couldn't reach books.example:8443: connection refused — the server may be down.")
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
            #expect(failure.isTemporary == (explain(kind).exitCode == 75), "\(kind)")
        }
    }
}
