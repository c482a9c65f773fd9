import Foundation
import Testing
import TestSupport

/// Randomized trials: `lib push` killed at any moment, and two pushes of one
/// account overlapping. LIB_STRESS=1 (`make stress`) runs the full
/// counts; `make test` a few.
@Suite(.serialized) struct PushStressTests {
    @Test func killedPushesLoseNothingAndSendNothingTwice() throws {
        let server = try startDemoServer(arguments: ["--fault", "delay=20,method=PUT"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        let books = (0..<50).map { "k-\($0)" }
        let trials = trialCount(stress: 200, quick: 10)
        for trial in 0..<trials {
            for book in books {
                let edit = trial == 0
                    ? try alice.lib("edit", "books/\(book)", "--create", "title=Kill", "copies:=0")
                    : try alice.lib("edit", "books/\(book)", "copies:=\(trial)")
                try #require(edit.status == 0, "\(edit)")
            }
            let push = try alice.start(["push"])
            usleep(UInt32.random(in: 0...1_300_000))
            kill(push.processIdentifier, SIGKILL)
            push.waitUntilExit()
            #expect(try alice.integrityCheck(account) == "ok", "trial \(trial)")

            let again = try alice.lib("push", "--wait", "30")
            #expect(again.status == 0, "trial \(trial)\n\(again)")
            #expect(!again.stderr.contains("locked"), "\(again)")
            #expect(try alice.integrityCheck(account) == "ok", "trial \(trial)")
            let order = try serverWriteOrder(server, user: "alice")
            #expect(order.count == books.count * (trial + 1), "trial \(trial): \(order.count) writes applied")
            #expect(Array(order.suffix(books.count)) == books, "trial \(trial): server order = outbox order")
        }
        for book in books.prefix(5) {
            let history = try serverHistory(server, book: book)
            #expect(history.count == trials, "\(book): one version per trial")
            #expect(history.last?.document?.contains("\"copies\":\(trials - 1)") == true)
        }
    }

    @Test func overlappingPushesSendEachWriteOnce() throws {
        let server = try startDemoServer(arguments: ["--fault", "delay=20,method=PUT"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let books = (0..<20).map { "o-\($0)" }
        let trials = trialCount(stress: 50, quick: 8)
        for trial in 0..<trials {
            for book in books {
                let edit = trial == 0
                    ? try alice.lib("edit", "books/\(book)", "--create", "title=Overlap", "copies:=0")
                    : try alice.lib("edit", "books/\(book)", "copies:=\(trial)")
                try #require(edit.status == 0, "\(edit)")
            }
            let results = RunResults()
            let group = DispatchGroup()
            for index in 0..<2 {
                OwnThread.start(in: group) {
                    if index == 1 { usleep(UInt32.random(in: 0...500_000)) }
                    results.append(try? alice.lib("push"))
                }
            }
            group.wait()
            for result in results.all {
                #expect(result?.status == 0, "trial \(trial)\n\(String(describing: result))")
                #expect(result?.stderr.contains("database is locked") == false, "\(String(describing: result))")
            }
            let order = try serverWriteOrder(server, user: "alice")
            #expect(order.count == books.count * (trial + 1), "trial \(trial): \(order.count) writes applied")
        }
    }
}

/// Results collected from concurrent runs.
final class RunResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [CommandResult?] = []
    func append(_ result: CommandResult?) { lock.withLock { results.append(result) } }
    var all: [CommandResult?] { lock.withLock { results } }
}
