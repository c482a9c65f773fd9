import Foundation
import Testing
import TestSupport

/// `-v` and `LIB_DEBUG`: what lib sends, on stderr, with no secret in it (issue 12).
@Suite struct TraceTests {
    /// The account's token, read back from the session's keyring.
    private func token(_ lib: LibHarness, _ server: ServerProcess, user: String) throws -> String {
        let id = try serverUserID(server, user)
        let result = try CommandRunner.run("/usr/bin/secret-tool", ["lookup", "server", server.baseURL, "user-id", id],
                                           environment: lib.environment)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func verboseGetTracesTheRequestAndNeverTheToken() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let secret = try token(lib, server, user: "alice")
        #expect(secret.count >= 16, "the token is in the keyring: '\(secret)'")

        let get = try lib.lib("-v", "get", "books/b-7")
        #expect(get.status == 0, "\(get)")
        // (The account's book schema may be fetched first, on the same connection.)
        let lines = get.stderr.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("lib: GET \(server.baseURL)/v1/books/b-7 -> 200 in ") && $0.hasSuffix(", direct") }, "\(get)")
        #expect(lines.first?.hasSuffix(" ms, new connection, direct") == true, "\(get)")
        #expect(lines.allSatisfy { $0.hasPrefix("lib: GET \(server.baseURL)/v1/") }, "one line per request, nothing else: \(get)")
        #expect(!get.stderr.contains(secret) && !get.stdout.contains(secret), "\(get)")
        #expect(!get.stderr.contains("Bearer"), "\(get)")

        // LIB_DEBUG=1 does the same; -vv adds libcurl's trace, redacted.
        let debug = try lib.lib(["get", "books/b-7"], environment: ["LIB_DEBUG": "1"])
        #expect(debug.stderr.contains("lib: GET \(server.baseURL)/v1/books/b-7 -> "), "\(debug)")
        let curl = try lib.lib("get", "books/b-7", "-vv")
        #expect(curl.status == 0, "\(curl)")
        #expect(curl.stderr.contains("lib: > GET /v1/books/b-7 HTTP/1.1"), "\(curl)")
        #expect(curl.stderr.contains("lib: > Authorization: REDACTED"), "\(curl)")
        #expect(curl.stderr.contains("lib: < ETag: "), "\(curl)")
        #expect(!curl.stderr.contains(secret) && !curl.stderr.contains("Bearer"), "\(curl)")

        // A push over one connection: what the server speaks, then both
        // writes in one batch, on the connection the first request opened.
        #expect(try lib.lib("edit", "books/b-1", "copies:=21").status == 0)
        #expect(try lib.lib("edit", "books/b-2", "copies:=22").status == 0)
        let push = try lib.lib("push", "-v")
        let requests = push.stderr.split(separator: "\n").filter { $0.hasPrefix("lib: GET ") || $0.hasPrefix("lib: POST ") }
        #expect(requests.count == 2 && requests[0].contains("GET \(server.baseURL)/v2/capabilities -> 200")
                && requests[1].contains("POST \(server.baseURL)/v2/writes -> 200") && requests[1].contains("connection reused"), "\(push)")
        #expect(!push.stderr.contains(secret), "\(push)")
    }

    @Test func withoutVerboseNothingIsTraced() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let get = try lib.lib("get", "books/b-7")
        #expect(get.status == 0 && get.stderr.isEmpty, "\(get)")
    }
}
