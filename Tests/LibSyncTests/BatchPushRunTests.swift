import Foundation
import LibBase
import LibJSON
import LibSync
import Testing
import TestSupport

/// A protocol-v2 stand-in: takes batches, answers each item from a script
/// (applied by default), and remembers every batch it was sent.
struct ScriptedBatchSender: WriteSender {
    var limit: Int
    /// Answers for the items, in the order they are sent; applied once it runs out.
    var answers: [WriteOutcome] = []
    /// Batches after which the whole batch fails (index → outcome for every item).
    var failingBatches: [Int: WriteOutcome] = [:]
    var batches: [[OutboxItem]] = []
    var prepared: (WriteOutcome, Never?)? = nil

    var wireProtocol: String { "v2" }
    var batchLimit: Int { limit }

    mutating func prepare() -> (WriteOutcome, Never?)? { prepared }

    mutating func send(_ item: OutboxItem) -> (WriteOutcome, Never?) {
        Issue.record("a batch sender was sent \(item.path) on its own")
        return (.temporary(reason: "unexpected", retryAfter: nil, sent: false), nil)
    }

    mutating func send(batch items: [OutboxItem]) -> [(WriteOutcome, Never?)] {
        batches.append(items)
        if let failure = failingBatches[batches.count - 1] { return items.map { _ in (failure, nil) } }
        return items.map { _ in
            (answers.isEmpty ? .applied(document: nil, etag: "\"v\(UUID().uuidString.prefix(6))\"") : answers.removeFirst(), nil)
        }
    }
}

@Suite struct BatchPushRunTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    func enqueue(_ path: String, _ title: String, on document: JSONObject = [:], base: String = "\"1\"") throws {
        try store.outbox.enqueue(.change(path, [("title", .string(title))], base: document, etag: base))
    }

    /// A second write of a path that may not merge into the first (the first counts as sent).
    func enqueueBehind(_ path: String, _ title: String) throws {
        try enqueue(path, title)
        let first = try #require(try store.outbox.items(for: path).last)
        try store.outbox.markSent(seq: first.seq)
    }

    @Test func manyWritesGoInFewBatchesOfDistinctPaths() throws {
        for i in 0..<250 { try enqueue("books/b-\(i)", "T\(i)") }
        var sender = ScriptedBatchSender(limit: 100)
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(sender.batches.map(\.count) == [100, 100, 50])
        #expect(report.applied == 250 && report.stop == nil)
        #expect(try store.outbox.all().isEmpty)
        #expect(try store.pushedLog.count() == 250)
    }

    @Test func aLaterWriteOfAPathGoesInALaterBatchAgainstTheVersionTheFirstLeft() throws {
        try enqueueBehind("books/b-1", "A")
        try enqueue("books/b-1", "B", on: ["title": "A"])
        try enqueue("books/b-2", "C")
        var sender = ScriptedBatchSender(limit: 100, answers: [.applied(document: #"{"id":"b-1","title":"A"}"#, etag: "\"a1\"")])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        try #require(sender.batches.map { $0.map(\.path) } == [["books/b-1", "books/b-2"], ["books/b-1"]])
        #expect(sender.batches[1][0].ifMatch == "\"a1\"", "the second write of b-1 goes against the first one's answer")
        #expect(sender.batches[1][0].baseBody == #"{"id":"b-1","title":"A"}"#)
        #expect(report.applied == 3)
    }

    @Test func aConflictInABatchHoldsItsPathAndTheOthersAreRecorded() throws {
        try enqueueBehind("books/b-1", "A")
        try enqueue("books/b-1", "A2")
        try enqueue("books/b-2", "B")
        try enqueue("books/b-3", "C")
        var sender = ScriptedBatchSender(limit: 100, answers: [
            .conflict(theirs: #"{"id":"b-1","title":"T"}"#, etag: "\"9\""), .rejected(problem: "no"), .applied(document: nil, etag: "\"3\""),
        ])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(sender.batches.count == 1, "the write behind the conflict is not sent")
        #expect(report.conflicts == ["books/b-1"] && report.rejected == ["books/b-2"] && report.applied == 1)
        #expect(try store.outbox.all().map(\.status) == [.conflict, .pending, .rejected])
    }

    @Test func aBatchCutByALostAnswerKeepsEveryWriteAsSentWithItsKey() throws {
        for i in 0..<5 { try enqueue("books/b-\(i)", "T\(i)") }
        var sender = ScriptedBatchSender(limit: 100, failingBatches: [0: .temporary(reason: "connection lost", retryAfter: nil, sent: true)])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.stop == .temporary(reason: "connection lost", retryAfter: nil) && report.applied == 0)
        let kept = try store.outbox.all()
        #expect(kept.count == 5 && kept.allSatisfy { $0.mayBeOnServer && $0.attempts == 1 && $0.sentWith == "v2" })
        var again = ScriptedBatchSender(limit: 100)
        _ = try PushRun(store: store, generation: 0).run(with: &again).report
        #expect(again.batches.first?.map(\.idempotencyKey) == sender.batches.first?.map(\.idempotencyKey), "the retry reuses every key")
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func aTemporaryItemStopsThePassButTheItemsAnsweredBesideItAreRecorded() throws {
        for i in 0..<3 { try enqueue("books/b-\(i)", "T\(i)") }
        var sender = ScriptedBatchSender(limit: 100, answers: [
            .applied(document: nil, etag: "\"1a\""), .temporary(reason: "key in flight", retryAfter: nil, sent: true),
            .applied(document: nil, etag: "\"3a\""),
        ])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.stop == .temporary(reason: "key in flight", retryAfter: nil) && report.applied == 2)
        #expect(try store.outbox.all().map(\.path) == ["books/b-1"])
    }

    @Test func aSenderThatCannotLearnTheProtocolClaimsAndSendsNothing() throws {
        try enqueue("books/b-1", "A")
        var sender = ScriptedBatchSender(limit: 100)
        sender.prepared = (.temporary(reason: "offline", retryAfter: nil, sent: false), nil)
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.stop == .temporary(reason: "offline", retryAfter: nil) && sender.batches.isEmpty)
        let item = try #require(try store.outbox.all().first)
        #expect(item.isUnsent && item.sentWith == nil, "nothing claimed: the write may still merge with later edits")
    }

    @Test func aWriteKeepsTheProtocolItWasFirstSentWith() throws {
        try enqueue("books/b-1", "A")
        var v1 = ScriptedSender(answers: [.temporary(reason: "connection lost", retryAfter: nil, sent: true)])
        _ = try PushRun(store: store, generation: 0).run(with: &v1)
        #expect(try store.outbox.all().first?.sentWith == "v1")
        var v2 = ScriptedBatchSender(limit: 100)
        _ = try PushRun(store: store, generation: 0).run(with: &v2)
        #expect(v2.batches.first?.first?.sentWith == "v1", "the sender sees it was a v1 request and sends it as one")
    }

    @Test func aMergedAnswerIsReportedAndLogged() throws {
        try enqueue("books/b-1", "A", on: ["id": "b-1", "title": "old", "copies": 1])
        let merged = MergedChanges(json: ["fields": ["copies"], "by": ["bob"]])
        var sender = ScriptedBatchSender(limit: 100, answers: [
            .applied(document: #"{"id":"b-1","title":"A","copies":5}"#, etag: "\"3\"", merged: merged),
        ])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.results.map(\.outcome) == [.applied(etag: "\"3\"", merged: merged)])
        #expect(try store.pushedLog.last(of: "books/b-1")?.merged == merged)
        #expect(merged.sentence == "merged with bob's change to copies")
        #expect(try store.cache.document(at: "books/b-1")?.etag == "\"3\"")
    }
}
