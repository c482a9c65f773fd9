import Foundation
import Testing
import TestSupport

/// Server misbehaviour, from a scripted TCP peer on loopback, seen through
/// the built `lib-net-check`.
struct ScriptedPeerTests {
    @Test func closeMidAnswerIsConnectionLost() throws {
        let peer = try ScriptedPeer { _, _ in
            .sendAndClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"title\":".utf8))
        }
        let result = try NetCheck.run(["request", peer.url("/v1/books/b-7"), "--pending", "4"])
        #expect(result.classification == "connection-lost", "\(result)")
        #expect(result.explanation == "The connection to 127.0.0.1 was lost. 4 writes are saved on this device.")
        #expect(result.status == 75)
    }

    @Test func closeBeforeAnswerIsConnectionLost() throws {
        let peer = try ScriptedPeer { _, _ in .sendAndClose([]) }
        let result = try NetCheck.run(["request", peer.url()])
        #expect(result.classification == "connection-lost", "\(result)")
        #expect(result.explanation == "The connection to 127.0.0.1 was lost.")
        #expect(result.status == 75)
    }

    @Test func serviceUnavailableKeepsRetryAfter() throws {
        let peer = try ScriptedPeer { _, _ in
            .send(httpResponse(503, "Service Unavailable", headers: ["retry-after: 5"], body: "busy"))
        }
        let result = try NetCheck.run(["request", peer.url(), "--pending", "2"])
        #expect(result.classification == "server-error 503 retry-after=5", "\(result)")
        #expect(
            result.explanation
                == "127.0.0.1 answered 503 Service Unavailable: try again in 5 s. 2 writes are saved on this device.")
        #expect(result.status == 75)
    }

    @Test func serverErrorWithoutRetryAfter() throws {
        let peer = try ScriptedPeer { _, _ in .send(httpResponse(500, "Internal Server Error")) }
        let result = try NetCheck.run(["request", peer.url()])
        #expect(result.classification == "server-error 500", "\(result)")
        #expect(result.explanation == "127.0.0.1 answered 500 Internal Server Error: try again later.")
        #expect(result.status == 75)
    }

    @Test func tooManyRequestsIsTemporary() throws {
        let peer = try ScriptedPeer { _, _ in
            .send(httpResponse(429, "Too Many Requests", headers: ["Retry-After: 30"]))
        }
        let result = try NetCheck.run(["request", peer.url()])
        #expect(result.classification == "rate-limited retry-after=30", "\(result)")
        #expect(result.explanation == "127.0.0.1 answered 429 Too Many Requests: try again in 30 s.")
        #expect(result.status == 75)
    }

    @Test func unauthorizedIsSessionExpired() throws {
        let peer = try ScriptedPeer { _, _ in
            .send(httpResponse(401, "Unauthorized", headers: ["Content-Type: application/problem+json"], body: "{}"))
        }
        let result = try NetCheck.run(["request", peer.url("/v1/me"), "--account", "alice@127.0.0.1", "--pending", "1"])
        #expect(result.classification == "unauthorized", "\(result)")
        #expect(
            result.explanation
                == "Your session for alice@127.0.0.1 has expired: run `lib login`. 1 write is saved on this device.")
        #expect(result.status == 4)
    }

    @Test func silentServerIsResponseTimeout() throws {
        let peer = try ScriptedPeer { _, _ in .hang }
        let start = Date()
        let result = try NetCheck.run(["request", peer.url(), "--timeout", "1"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.classification == "timeout-response", "\(result)")
        #expect(
            result.explanation == "127.0.0.1:\(peer.port) accepted the connection but didn't answer: timed out after 1 s.")
        #expect(result.status == 75)
        #expect(elapsed >= 0.9 && elapsed < 2.0)
    }

    @Test func successPrintsStatus() throws {
        let peer = try ScriptedPeer { _, _ in .send(httpResponse(200, "OK", body: "{}")) }
        let result = try NetCheck.run(["request", peer.url()])
        #expect(result.stdout == "ok 200\n", "\(result)")
        #expect(result.stderr == "")
        #expect(result.status == 0)
    }

    @Test func redirectIsReportedNotFollowed() throws {
        let other = try ScriptedPeer { _, _ in .send(httpResponse(200, "OK")) }
        let peer = try ScriptedPeer { _, _ in
            .send(httpResponse(302, "Found", headers: ["Location: \(other.url("/stolen"))"]))
        }
        let result = try NetCheck.run(["request", peer.url(), "--header", "Authorization: Bearer tok-REDIRECT-77"])
        #expect(result.classification == "redirect 302", "\(result)")
        #expect(
            result.explanation
                == "127.0.0.1 answered 302 with a redirect to \(other.url("/stolen")); lib doesn't follow redirects: check the server URL."
        )
        #expect(result.status == 1)
        #expect(other.acceptedConnections == 0)
    }

    /// A distinctive token in the Authorization header, through every
    /// failure a scripted peer can produce: it is sent to the server, and
    /// appears in no output.
    @Test func tokenNeverAppearsInAnyOutput() throws {
        let token = "tok-SECRET-9d2f7a41c0"
        let replies: [ScriptedPeer.Reply] = [
            .sendAndClose([]),
            .sendAndClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nx".utf8)),
            .send(httpResponse(503, "Service Unavailable", headers: ["Retry-After: 1"])),
            .send(httpResponse(401, "Unauthorized")),
            .send(httpResponse(429, "Too Many Requests")),
            .send(httpResponse(301, "Moved", headers: ["Location: http://192.0.2.77/"])),
            .hang,
        ]
        for reply in replies {
            let peer = try ScriptedPeer { _, _ in reply }
            let result = try NetCheck.run([
                "request", peer.url(), "--timeout", "0.5", "--header", "Authorization: Bearer \(token)", "--debug",
            ])
            #expect(result.status != 0)
            #expect(!result.stdout.contains(token) && !result.stderr.contains(token), "\(result)")
            #expect(peer.receivedRequests.first?.contains("Authorization: Bearer \(token)") == true)
        }
        let refused = try NetCheck.run(["request", "http://127.0.0.1:1/", "--header", "Authorization: Bearer \(token)", "--debug"])
        #expect(!refused.stdout.contains(token) && !refused.stderr.contains(token), "\(refused)")
    }
}
