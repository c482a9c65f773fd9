import Foundation
import Testing
import TestSupport

/// `lib push` in protocol-v2 batches (the default) against a real
/// lib-server: an update of fields nobody else changed merges on the
/// server; a clash on a field it changes, or a delete of a changed book,
/// is a conflict as before; a v1-only server is spoken to one by one.
@Suite struct ProtocolV2PushTests {
    /// A demo lib-server that logs each request (`--verbose`) to a file.
    final class LoggedServer {
        let directory: TemporaryDirectory
        let process: ServerProcess
        let logPath: String

        init(arguments: [String]) throws {
            directory = try TemporaryDirectory("lib-e2e-v2")
            logPath = directory.file("requests.log")
            FileManager.default.createFile(atPath: logPath, contents: nil)
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process = try ServerProcess(database: directory.file("server.sqlite"), extraArguments: ["--verbose"] + arguments,
                                        standardError: log)
        }

        /// "METHOD TARGET STATUS Nms", one per request answered.
        func requestLog() throws -> [String] {
            try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init)
        }
    }

    /// alice caches b-7; bob changes `bobChanges` and pushes; alice changes
    /// her stale copy (`aliceChanges`) and pushes in a batch.
    func race(bob bobChanges: [String], alice aliceChanges: [String], serverArguments: [String] = [],
              push arguments: [String] = ["push"], environment: [String: String] = [:])
        throws -> (push: CommandResult, alice: LibHarness, server: LoggedServer) {
        let logged = try LoggedServer(arguments: serverArguments)
        let server = logged.process
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        let bobEdit = try bob.lib(["edit", "books/b-7"] + bobChanges + ["--push"])
        #expect(bobEdit.status == 0, "\(bobEdit)")
        let edit = try alice.lib(["edit", "books/b-7"] + aliceChanges)
        #expect(edit.status == 0, "\(edit)")
        return (try alice.lib(arguments, environment: environment), alice, logged)
    }

    @Test func anEditOfAnotherFieldIsMergedAndSaysSo() throws {
        let (push, alice, server) = try race(bob: ["copies:=5"], alice: ["year:=1966"])
        #expect(push.status == 0, "\(push)")
        #expect(push.stdout.contains("books/b-7: merged with bob's change to copies."), "\(push)")
        let book = try alice.lib("get", "--fresh", "books/b-7")
        #expect(book.stdout.contains("\"copies\": 5") && book.stdout.contains("\"year\": 1966"), "\(book)")
        let log = try alice.lib("log")
        #expect(log.stdout.contains("(merged with bob's change to copies)"), "\(log)")
        let requests = try server.requestLog()
        #expect(requests.contains { $0.hasPrefix("POST /v2/writes") }, "\(requests)")
        #expect(!requests.contains { $0.hasPrefix("PUT /v1/books/b-7") }, "\(requests)")
    }

    @Test func anEditOfTheSameFieldIsAConflictAsBefore() throws {
        let (push, _, server) = try race(bob: ["copies:=5"], alice: ["copies:=1"])
        #expect(push.status == 3, "\(push)")
        #expect(push.stderr.contains("1 conflict: books/b-7"), "\(push)")
        let history = try serverHistory(server.process, book: "b-7")
        #expect(history.count == 2 && history.last?.document?.contains("\"copies\":5") == true, "bob's change is not overwritten: \(history)")
    }

    @Test func aDeleteOfAChangedBookIsAConflict() throws {
        let (push, _, _) = try race(bob: ["copies:=5"], alice: ["--delete"])
        #expect(push.status == 3, "\(push)")
        #expect(push.stderr.contains("1 conflict: books/b-7"), "\(push)")
    }

    /// `--strict` and LIB_STRICT_WRITES=1: the whole-version rule, in a batch.
    @Test(arguments: [(["push", "--strict"], [:]), (["push"], ["LIB_STRICT_WRITES": "1"])])
    func theStrictRuleMakesAnotherFieldsChangeAConflict(push: [String], environment: [String: String]) throws {
        let (push, _, server) = try race(bob: ["copies:=5"], alice: ["year:=1966"], push: push, environment: environment)
        #expect(push.status == 3, "\(push)")
        #expect(push.stderr.contains("1 conflict: books/b-7"), "\(push)")
        let requests = try server.requestLog()
        #expect(requests.filter { $0.hasPrefix("POST /v2/writes 200") }.count == 2, "bob's and alice's batches: \(requests)")
        #expect(try serverHistory(server.process, book: "b-7").count == 2)
    }

    /// LIB_PROTOCOL=v1: one request per write even to a server that speaks v2.
    @Test func libProtocolV1SendsOneRequestPerWrite() throws {
        let (push, _, server) = try race(bob: ["copies:=5"], alice: ["year:=1966"], environment: ["LIB_PROTOCOL": "v1"])
        #expect(push.status == 3, "v1's whole-version rule: \(push)")
        let requests = try server.requestLog()
        #expect(requests.contains { $0.hasPrefix("PUT /v1/books/b-7 412") }, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("POST /v2/writes") }.count == 1, "bob's only: \(requests)")
    }

    /// A stand-in on the server's port (a portal, a proxy) answers the
    /// batch: nothing in its answer proves a write, so every write stays
    /// pending; the real server, back, applies each exactly once.
    @Test func aBatchAnsweredByAStandInKeepsEveryWrite() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-1", "books/b-2"], from: server, as: "alice")
        // A first push learns that the server speaks v2.
        #expect(try alice.lib("new", "books", "title=First").status == 0)
        #expect(try alice.lib("push").status == 0)
        for book in ["b-1", "b-2"] { #expect(try alice.lib("edit", "books/\(book)", "copies:=30").status == 0) }
        let port = UInt16(server.port)
        server.stop()
        let answers: [(head: String, body: String)] = [
            ("200 OK\r\nContent-Type: text/html", "<html><h1>Sign in to Café Wi-Fi</h1></html>"),
            ("200 OK\r\nContent-Type: application/json", #"{"results":[]}"#),
            ("200 OK\r\nContent-Type: application/json", #"{"results":[{"key":"other","status":200},{"key":"another","status":200}]}"#),
            ("204 No Content", ""),
        ]
        for (head, body) in answers {
            let peer = try ScriptedPeer(port: port) { _, _ in
                .send(Array("HTTP/1.1 \(head)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            }
            let push = try alice.lib("push")
            #expect(push.status == 75, "\(head): \(push)")
            #expect(push.stderr.contains("did not come from the library server"), "\(head): \(push)")
            #expect(push.stderr.contains("2 writes are saved on this device."), "\(head): \(push)")
            #expect(!push.stdout.contains("Pushed"), "\(push)")
            #expect(try alice.pending() == 2)
            #expect(peer.receivedRequests.first?.hasPrefix("POST /v2/writes ") == true, "\(peer.receivedRequests)")
        }
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(port)")
        let again = try alice.lib("push")
        #expect(again.status == 0 && again.stdout.contains("Pushed 2 writes"), "\(again)")
        for book in ["b-1", "b-2"] {
            let history = try serverHistory(restarted, book: book)
            #expect(history.count == 2 && history.last?.document?.contains("\"copies\":30") == true, "applied once: \(history)")
        }
    }

    @Test func aV1OnlyServerGetsOneRequestPerWrite() throws {
        let (push, _, server) = try race(bob: ["copies:=5"], alice: ["year:=1966"], serverArguments: ["--legacy-protocol"])
        #expect(push.status == 3, "v1's whole-version rule: \(push)")
        let requests = try server.requestLog()
        #expect(requests.contains { $0.hasPrefix("GET /v2/capabilities 404") }, "\(requests)")
        #expect(!requests.contains { $0.hasPrefix("POST /v2/writes") }, "\(requests)")
    }

    /// On a terminal, a push says how many writes have had an answer, batch
    /// by batch, and clears the line before its summary; in a pipe, nothing.
    @Test func progressOnATerminalCountsWrites() throws {
        let server = try startDemoServer(arguments: ["--max-batch-writes", "2", "--fault", "delay=300,path=/v2/writes"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        for i in 0..<5 { #expect(try alice.lib("new", "books", "title=Progress \(i)").status == 0) }
        let shown = try alice.onTerminal("push", environment: ["NO_COLOR": "1"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("Pushing: 2 of 5 writes answered") && shown.stdout.contains("Pushing: 4 of 5 writes answered"),
                "\(shown.stdout.debugDescription)")
        #expect(shown.stdout.contains("\r\u{1B}[KPushed 5 writes"), "cleared before the summary: \(shown.stdout.debugDescription)")
        for i in 0..<2 { #expect(try alice.lib("new", "books", "title=Piped \(i)").status == 0) }
        let piped = try alice.lib("push")
        #expect(piped.status == 0 && !piped.stderr.contains("Pushing"), "\(piped)")
    }

    @Test func manyWritesGoInOneRequest() throws {
        let logged = try LoggedServer(arguments: [])
        let server = logged.process
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        for i in 0..<30 {
            let made = try alice.lib("new", "books", "title=Batch \(i)")
            #expect(made.status == 0, "\(made)")
        }
        let push = try alice.lib(["push"])
        #expect(push.status == 0 && push.stdout.contains("Pushed 30 writes"), "\(push)")
        let batches = try logged.requestLog().filter { $0.hasPrefix("POST /v2/writes") }
        #expect(batches.count == 1, "\(batches)")
    }
}
