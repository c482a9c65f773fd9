import Foundation
import LibJSON
import Testing
import TestSupport

/// PostgreSQL stopped for 20 s and started again under a running lib-server
/// and a running push (issue 23): 503 with Retry-After meanwhile, normal
/// answers within seconds after, every write applied exactly once, and no
/// lib-server restart.
@Suite struct DatabaseRestartTests {
    @Test func aPushSpanningAPostgreSQLRestartAppliesEveryWriteOnce() throws {
        let cluster = try PostgresCluster()
        // Each write waits 20 ms in the server, so that the push is still
        // going when the database stops.
        let server = try ServerProcess(database: cluster.uri, extraArguments: ["--fault", "delay=20,method=PUT"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        for n in 0..<300 {
            let edit = try alice.lib("edit", "books/pg-\(n)", "--create", "title=Written \(n)")
            try #require(edit.status == 0, "\(edit)")
        }
        let probe = try HTTPTestClient(port: server.port)
        let token = try #require(try Self.token(probe, "bob"))

        let push = try alice.start(["push", "--wait", "120"])
        let applied = { try TestDatabase.query(cluster.uri, "SELECT count(*) FROM books WHERE id LIKE 'pg-%'") }
        let started = Date()
        while (Int(try applied().trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) < 20, Date().timeIntervalSince(started) < 30 {
            usleep(20_000)
        }
        try cluster.stop()
        let stoppedAt = Date()
        var outage: [(Int, String?)] = []
        while Date().timeIntervalSince(stoppedAt) < 20 {
            let answer = try HTTPTestClient(port: server.port).request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
            outage.append((answer.status, answer.header("Retry-After")))
            usleep(500_000)
        }
        #expect(outage.allSatisfy { $0.0 == 503 && $0.1 == "2" }, "\(outage)")
        try cluster.start()
        let back = Date()
        var recovered: TimeInterval?
        while recovered == nil, Date().timeIntervalSince(back) < 30 {
            let answer = try HTTPTestClient(port: server.port).request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
            if answer.status == 200 { recovered = Date().timeIntervalSince(back) } else { usleep(100_000) }
        }
        let seconds = try #require(recovered, "never answered 200 again")
        #expect(seconds < 5, "normal again after \(seconds) s")

        push.waitUntilExit()
        #expect(push.terminationStatus == 0)
        #expect(try alice.pending() == 0)
        #expect(try applied().trimmingCharacters(in: .whitespacesAndNewlines) == "300")
        let versions = try TestDatabase.query(cluster.uri, "SELECT count(*), count(DISTINCT book_id) FROM history WHERE book_id LIKE 'pg-%'")
        #expect(versions.trimmingCharacters(in: .whitespacesAndNewlines) == "300|300", "each write applied exactly once: \(versions)")
        #expect(server.process.isRunning, "the same lib-server throughout")
    }

    /// A token for a demo user, from POST /v1/sessions.
    static func token(_ client: HTTPTestClient, _ user: String) throws -> String? {
        let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                        body: #"{"username":"\#(user)","password":"\#(user)-demo"}"#)
        return try JSONParser.parse(answer.body)["token"]?.stringValue
    }
}
