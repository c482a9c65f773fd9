import Foundation
import LibJSON
import Testing
import TestSupport

/// A write is done only when the library server proves it (DESIGN.md,
/// "Writes: the outbox"): a stand-in on the real server's port (a captive
/// portal, a misconfigured proxy) answers the push; lib keeps the write
/// pending, says the answer did not come from the library server, exits
/// 75; once the real server is back on that port the write is applied
/// exactly once.
@Suite struct ServerProofTests {
    /// One stand-in's answer to the write, and what lib says it saw.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let delete: Bool
        let answer: [UInt8]
        let seen: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "PUT → 200 text/html", delete: false,
             answer: httpResponse(200, "OK", headers: ["Content-Type: text/html"], body: "<html><h1>Sign in to Café Wi-Fi</h1></html>"),
             seen: "200 text/html without this write's Idempotency-Key"),
        Case(name: "PUT → 204", delete: false, answer: httpResponse(204, "No Content"),
             seen: "204 with no body without this write's Idempotency-Key"),
        Case(name: "PUT → 200 {} without ETag", delete: false,
             answer: httpResponse(200, "OK", headers: ["Content-Type: application/json"], body: "{}"),
             seen: "200 application/json without this write's Idempotency-Key"),
        Case(name: "PUT → 200 cut JSON", delete: false,
             answer: httpResponse(200, "OK", headers: ["Content-Type: application/json", "ETag: \"v9\""], body: "{\"id\":\"b-7\",\"title\":\"Du"),
             seen: "200 application/json without this write's Idempotency-Key"),
        Case(name: "DELETE → 204", delete: true, answer: httpResponse(204, "No Content"),
             seen: "204 with no body without this write's Idempotency-Key"),
        Case(name: "PUT → 302 to the portal", delete: false,
             answer: httpResponse(302, "Found", headers: ["Location: http://portal.example/login"]),
             seen: ""),
    ]

    /// These stand-ins answer v1's requests (LIB_PROTOCOL=v1); a batch
    /// answered by one is ProtocolV2PushTests'.
    @Test(arguments: cases)
    func anAnswerNotFromTheLibraryServerKeepsTheWrite(_ standIn: Case) throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        alice.extraEnvironment["LIB_PROTOCOL"] = "v1"
        try alice.login("alice", to: server)
        let book = standIn.delete ? "b-8" : "b-7"
        #expect(try alice.lib("get", "books/\(book)").status == 0)
        let edit = standIn.delete
            ? try alice.lib("edit", "books/\(book)", "--delete") : try alice.lib("edit", "books/\(book)", "title=Proof")
        #expect(edit.status == 0, "\(edit)")
        let versionsBefore = try serverHistory(server, book: book).count
        let port = UInt16(server.port)
        server.stop()

        var peer: ScriptedPeer? = try ScriptedPeer(port: port) { _, _ in .send(standIn.answer) }
        let push = try alice.lib("push")
        #expect(push.status == 75, "\(push)")
        if standIn.seen.isEmpty {
            #expect(push.stderr.contains("answered 302 with a redirect to http://portal.example/login: a captive portal or a proxy may be intercepting. Sign in to the network, then try again. 1 write is saved on this device."), "\(push)")
        } else {
            #expect(push.stderr == "lib: 127.0.0.1:\(port) gave an answer that did not come from the library server (a captive portal or a proxy may be answering): \(standIn.seen). If the network asks you to sign in, do so, then try again. 1 write is saved on this device.\n", "\(push)")
        }
        #expect(!push.stdout.contains("Pushed"), "\(push)")
        #expect(try alice.pending() == 1)
        #expect(try alice.outboxAttempts(alice.account("alice", on: server)) == [1])
        let method = standIn.delete ? "DELETE" : "PUT"
        #expect(peer?.receivedRequests.first?.hasPrefix("\(method) /v1/books/\(book) ") == true)

        // What the stand-in said was never kept: the pending write still shows.
        let offline = try alice.lib("get", "--offline", "books/\(book)")
        if standIn.delete {
            #expect(offline.stderr.contains("not yet pushed"), "\(offline)")
        } else {
            #expect(try JSONParser.parse(offline.stdout)["title"]?.stringValue == "Proof", "\(offline)")
        }

        peer = nil
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(port)")
        let again = try alice.lib("push")
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("Pushed 1 write"), "\(again)")
        let history = try serverHistory(restarted, book: book)
        #expect(history.count == versionsBefore + 1, "applied exactly once: \(history)")
        #expect(history.last?.updatedBy == (try serverUserID(restarted, "alice")))
        #expect(try alice.pending() == 0)
    }

    /// The key alone is not proof for a PUT: a stand-in that echoes it
    /// (a proxy passing headers through a broken answer) must also send a
    /// 200/201 JSON book with the path's id and an ETag.
    @Test func anEchoedKeyWithoutTheBookIsNotProof() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        alice.extraEnvironment["LIB_PROTOCOL"] = "v1"
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-7").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "title=Proof").status == 0)
        let port = UInt16(server.port)
        server.stop()
        let answers: [(String, String)] = [
            ("204 No Content", "204 with no body to a PUT"),
            ("200 OK\r\nContent-Type: application/json", "200 JSON without an ETag"),
            ("200 OK\r\nContent-Type: application/json\r\nETag: \"v2\"", "200 with a document that is not the book b-7"),
            ("200 OK\r\nContent-Type: text/html\r\nETag: \"v2\"", "200 text/html where a book was expected"),
            // Rejected (the write dropped) until the client-answer fuzz target found it.
            ("304 Not Modified", "304 with no body"),
            ("600 Odd", "600 with no body"),
        ]
        for (head, seen) in answers {
            let body = head.contains("application/json") ? "{\"id\":\"b-1\",\"title\":\"Other\"}" : ""
            let jsonBody = seen.contains("ETag") ? "{\"id\":\"b-7\",\"title\":\"Proof\"}" : body
            let peer = try ScriptedPeer(port: port) { _, request in
                let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("idempotency-key:") }
                    .map { String($0.dropFirst("idempotency-key:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
                return .send(Array("HTTP/1.1 \(head)\r\nIdempotency-Key: \(key)\r\nContent-Length: \(jsonBody.utf8.count)\r\n\r\n\(jsonBody)".utf8))
            }
            let push = try alice.lib("push")
            #expect(push.status == 75, "\(push)")
            #expect(push.stderr.contains("did not come from the library server (a captive portal or a proxy may be answering): \(seen)."), "\(push)")
            #expect(try alice.pending() == 1)
            _ = peer
        }
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(port)")
        #expect(try alice.lib("push").status == 0)
        #expect(try serverHistory(restarted, book: "b-7").filter { $0.document?.contains("Proof") == true }.count == 1)
    }
}

extension LibHarness {
    /// The attempts counted for each write in the account's outbox, in order.
    func outboxAttempts(_ account: String) throws -> [Int] {
        try CommandRunner.run("/usr/bin/sqlite3", [storePath(account), "SELECT attempts FROM outbox ORDER BY seq"]).stdout
            .split(separator: "\n").compactMap { Int($0) }
    }
}
