import Foundation
import Testing
import TestSupport

/// lib-server killed (SIGKILL) in the middle of a protocol-v2 batch: before
/// its transaction began, with the transaction open, and after its commit
/// but before its answer. lib keeps every write as sent without an answer;
/// with the server back on the same database, the next push applies each
/// write exactly once (a batch that committed is replayed from its keys'
/// records), and a later write of a book goes after the earlier one.
@Suite struct ServerKilledMidBatchTests {
    enum Moment: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case beforeTheTransaction = "delay=20000"
        case inTheOpenTransaction = "hold-before-commit=20000"
        case afterTheCommit = "hold-after-commit=20000"
        var testDescription: String { "\(self)" }
    }

    static let created = ["kb-0", "kb-1", "kb-2"]

    @Test(arguments: Moment.allCases)
    func everyWriteIsAppliedOnceAfterTheServerDiesMidBatch(_ moment: Moment) throws {
        let dir = try TemporaryDirectory("lib-e2e-killed")
        let serverLog = dir.file("server.log")
        FileManager.default.createFile(atPath: serverLog, contents: nil)
        let server = try ServerProcess(database: dir.file("server.sqlite"),
                                       extraArguments: ["--verbose", "--fault", "\(moment.rawValue),path=/v2/writes,times=1"],
                                       standardError: try FileHandle(forWritingTo: URL(fileURLWithPath: serverLog)), owning: dir)
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        try alice.cache(["books/b-1", "books/b-2"], from: server, as: "alice")
        for book in Self.created {
            #expect(try alice.lib("edit", "books/\(book)", "--create", "title=Killed \(book)").status == 0)
        }
        #expect(try alice.lib("edit", "books/b-1", "copies:=31").status == 0)
        #expect(try alice.lib("edit", "books/b-2", "copies:=32").status == 0)

        let stderrPath = dir.file("push.stderr")
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let push = Process()
        push.executableURL = URL(fileURLWithPath: BuiltProducts.path("lib"))
        push.arguments = ["push"]
        push.environment = alice.environment
        push.standardOutput = FileHandle.nullDevice
        push.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try push.run()

        // The batch is inside the fault: the server's log says so (--verbose).
        #expect(waitUntil(timeout: 60) {
            ((try? String(contentsOfFile: serverLog, encoding: .utf8)) ?? "").contains(" of POST /v2/writes")
        } != nil, "the batch never reached the fault")
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        push.waitUntilExit()
        let said = try String(contentsOfFile: stderrPath, encoding: .utf8)
        #expect(push.terminationStatus == 75, "\(moment): \(said)")
        #expect(said.contains("5 writes are saved on this device"), "\(said)")
        #expect(try alice.pending() == 5)
        #expect(try serverHistory(server, book: "kb-0").count == (moment == .afterTheCommit ? 1 : 0),
                "the batch committed only after its transaction")
        let short = try alice.lib("status", "--short").stdout
        #expect(short.contains("MS books/b-1") && short.contains("AS books/kb-0"), "sent, no answer: \(short)")

        // A later write of b-1 waits behind the sent one, then goes after it.
        #expect(try alice.lib("edit", "books/b-1", "copies:=41").status == 0)
        let restarted = try server.restarted()
        let again = try alice.lib("push")
        #expect(again.status == 0, "\(again)")
        #expect(try alice.pending() == 0 && alice.conflicts() == 0)
        for book in Self.created {
            #expect(try serverHistory(restarted, book: book).count == 1, "\(book) applied once")
        }
        let b1 = try serverHistory(restarted, book: "b-1")
        #expect(b1.count == 3 && b1[1].document?.contains("\"copies\":31") == true && b1[2].document?.contains("\"copies\":41") == true,
                "b-1 in order, each once: \(b1)")
        #expect(try serverHistory(restarted, book: "b-2").count == 2)
        #expect(try alice.integrityCheck(account) == "ok")
    }
}
