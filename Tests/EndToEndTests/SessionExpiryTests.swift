import Foundation
import Testing
import TestSupport

/// A session older than the server's `--session-lifetime` (issue 23).
@Suite struct SessionExpiryTests {
    @Test func anExpiredSessionSaysRunLibLoginAndKeepsEveryWrite() throws {
        let server = try startDemoServer(arguments: ["--session-lifetime", "60", "--fault-control"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("edit", "books/b-7", "copies:=41").status == 0)
        #expect(try alice.lib("edit", "books/b-8", "copies:=42").status == 0)
        // The server's clock moves on past the session's lifetime (no sleep).
        #expect(try HTTPTestClient(port: server.port).request("PUT", "/_test/clock", body: "61").status == 200)
        let push = try alice.lib("push")
        #expect(push.status == 4, "\(push)")
        #expect(push.stderr.contains("Your session for \(account) has expired: run `lib login"), "\(push)")
        #expect(try alice.pending() == 2)
        try alice.login("alice", to: server)
        #expect(try alice.lib("push").status == 0)
        #expect(try alice.pending() == 0)
        #expect(try serverHistory(server, book: "b-8").last?.document?.contains("\"copies\":42") == true)
    }
}
