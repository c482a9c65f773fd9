import Foundation
import LibJSON
import LibSync
import Testing
import TestSupport

/// A server stand-in that answers from a script and remembers what it was sent.
struct ScriptedSender: WriteSender {
    var answers: [WriteOutcome]
    var sent: [OutboxItem] = []
    var onSend: ((OutboxItem) -> Void)?

    mutating func send(_ item: OutboxItem) -> (WriteOutcome, Never?) {
        sent.append(item)
        onSend?(item)
        return (answers.isEmpty ? .applied(document: nil, etag: "\"e\(sent.count)\"") : answers.removeFirst(), nil)
    }
}

@Suite struct PushRunTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    /// A title change, made on `document` (as the user saw it) against `base`.
    func enqueue(_ path: String, _ title: String, on document: JSONObject = [:], base: String = "\"1\"") throws {
        try store.outbox.enqueue(.change(path, [("title", .string(title))], base: document, etag: base))
    }

    @Test func sendsInOrderChainingETagsOfOnePath() throws {
        try enqueue("books/b-1", "A")
        let first = try #require(try store.outbox.all().first)
        try store.outbox.markSent(seq: first.seq)  // so that the next edit queues instead of merging
        try enqueue("books/b-1", "B", on: ["title": "A"])
        try enqueue("books/b-2", "C")
        var sender = ScriptedSender(answers: [])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.applied == 3 && report.conflicts.isEmpty && report.rejected.isEmpty && report.stop == nil)
        #expect(report.results.map(\.path) == ["books/b-1", "books/b-1", "books/b-2"])
        #expect(report.results.map(\.outcome) == [.applied(etag: "\"e1\""), .applied(etag: "\"e2\""), .applied(etag: "\"e3\"")])
        #expect(sender.sent.map(\.sentText) == [#"{"title":"A"}"#, #"{"title":"B"}"#, #"{"title":"C"}"#])
        #expect(sender.sent.map(\.ifMatch) == ["\"1\"", "\"e1\"", "\"1\""])
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func temporaryFailureStopsAndKeepsOrderAndKey() throws {
        try enqueue("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.temporary(reason: "connection reset", retryAfter: nil, sent: true)])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.stop == .temporary(reason: "connection reset", retryAfter: nil))
        #expect(sender.sent.count == 1)
        let items = try store.outbox.all()
        #expect(items.map(\.path) == ["books/b-1", "books/b-2"])
        #expect(items[0].attempts == 1 && items[0].mayBeOnServer)
        #expect(items[1].attempts == 0 && !items[1].mayBeOnServer, "never reached in this push: not sent")
        #expect(items[0].lastError == "connection reset")
        var again = ScriptedSender(answers: [])
        _ = try PushRun(store: store, generation: 0).run(with: &again).report
        #expect(again.sent.first?.idempotencyKey == sender.sent.first?.idempotencyKey, "a retry reuses its key")
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func conflictHoldsItsPathAndOthersGoOn() throws {
        try enqueue("books/b-1", "A")
        let a = try #require(try store.outbox.all().first)
        try store.outbox.markSent(seq: a.seq)
        try enqueue("books/b-1", "A2", on: ["title": "A"])
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.conflict(theirs: #"{"title":"T"}"#, etag: "\"9\""), .applied(document: nil, etag: "\"2\"")])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.conflicts == ["books/b-1"])
        #expect(report.applied == 1)
        #expect(sender.sent.map(\.path) == ["books/b-1", "books/b-2"])
        #expect(try store.outbox.counts() == (pending: 1, conflicts: 1, rejected: 0))
    }

    @Test func nothingIsSentOnceTheGenerationMoved() throws {
        try enqueue("books/b-1", "A")
        try enqueue("books/b-2", "B")
        let generation = try store.generation()
        let otherProcess = try AccountStore(path: dir.file("store.sqlite"))
        var sender = ScriptedSender(answers: [])
        sender.onSend = { _ in _ = try? otherProcess.advanceGeneration() }
        let report = try PushRun(store: store, generation: generation).run(with: &sender).report
        #expect(report.stop == .loggedOut)
        #expect(sender.sent.count == 1, "the request already on the wire finishes; nothing after it")
        #expect(try store.outbox.all().map(\.path) == ["books/b-2"])
    }

    /// Puts a write of `path` behind an attempted one, as a later edit does
    /// while the first is in flight.
    func enqueueBehind(_ path: String, _ title: String) throws {
        try enqueue(path, title)
        let items = try store.outbox.items(for: path)
        try store.outbox.markSent(seq: try #require(items.last).seq)
        try store.outbox.enqueue(.change(path, [("title", .string(title + "2"))], base: ["title": .string(title)], etag: "\"1\""))
    }

    @Test func answersAreRecordedInBatchesAndAtTheEnd() throws {
        for i in 0..<7 { try enqueue("books/b-\(i)", "T\(i)") }
        let reader = try AccountStore(path: dir.file("store.sqlite"))
        var onDisk: [Int] = []
        var sender = ScriptedSender(answers: [])
        sender.onSend = { _ in onDisk.append((try? reader.outbox.counts().pending) ?? -1) }
        let report = try PushRun(store: store, generation: 0, recordEvery: 3, orEvery: 3600).run(with: &sender).report
        #expect(report.applied == 7)
        #expect(onDisk == [7, 7, 7, 4, 4, 4, 1], "one transaction per 3 answers")
        #expect(try store.outbox.all().isEmpty, "the last, partial batch is recorded before the pass returns")
        #expect(try store.cache.document(at: "books/b-6")?.etag == "\"e7\"")
    }

    @Test func aLaterWriteCarriesTheETagOfAnAnswerNotYetRecorded() throws {
        try enqueueBehind("books/b-1", "A")
        try enqueue("books/b-2", "B")
        try store.outbox.enqueue(.delete("books/b-2", base: ["title": "B"], etag: "\"1\""))
        let b2 = try store.outbox.items(for: "books/b-2")
        try store.outbox.markSent(seq: b2[0].seq)
        #expect(b2.count == 1, "the delete merged into the unsent put")
        try store.outbox.enqueue(.create("books/b-2", ["title": "again"]))
        let reader = try AccountStore(path: dir.file("store.sqlite"))
        var sender = ScriptedSender(answers: [])
        var recorded: [Int] = []
        sender.onSend = { _ in recorded.append((try? reader.outbox.counts().pending) ?? -1) }
        _ = try PushRun(store: store, generation: 0, recordEvery: 100, orEvery: 3600).run(with: &sender).report
        #expect(recorded == [4, 4, 4, 4], "nothing recorded during the pass")
        #expect(sender.sent.map(\.path) == ["books/b-1", "books/b-1", "books/b-2", "books/b-2"])
        #expect(sender.sent.map(\.ifMatch) == ["\"1\"", "\"e1\"", "\"1\"", nil])
        #expect(sender.sent.map(\.createOnly) == [false, false, false, true], "after a delete, the next write creates")
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func aConflictNotYetRecordedHoldsItsPath() throws {
        try enqueueBehind("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.conflict(theirs: #"{"title":"T"}"#, etag: "\"9\""),
                                              .rejected(problem: "no"), .applied(document: nil, etag: "\"3\"")])
        try enqueue("books/b-3", "C")
        let report = try PushRun(store: store, generation: 0, recordEvery: 100, orEvery: 3600).run(with: &sender).report
        #expect(sender.sent.map(\.path) == ["books/b-1", "books/b-2", "books/b-3"])
        #expect(report.conflicts == ["books/b-1"] && report.rejected == ["books/b-2"] && report.applied == 1)
        let items = try store.outbox.all()
        #expect(items.map(\.status) == [.conflict, .pending, .rejected])
        #expect(items[0].theirsETag == "\"9\"")
    }

    @Test func aStopRecordsTheAnswersBeforeIt() throws {
        try enqueueBehind("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.applied(document: #"{"title":"A"}"#, etag: "\"7\""),
                                              .temporary(reason: "connection reset", retryAfter: nil, sent: true)])
        let report = try PushRun(store: store, generation: 0, recordEvery: 100, orEvery: 3600).run(with: &sender).report
        #expect(report.applied == 1)
        #expect(report.stop == .temporary(reason: "connection reset", retryAfter: nil))
        let items = try store.outbox.all()
        #expect(items.map(\.path) == ["books/b-1", "books/b-2"], "order kept")
        #expect(items[0].ifMatch == "\"7\"" && items[0].lastError == "connection reset")
        #expect(try store.cache.document(at: "books/b-1")?.etag == "\"7\"")
    }

    @Test func loggingOutRecordsTheAnswersAndSendsNothingMore() throws {
        for i in 0..<4 { try enqueue("books/b-\(i)", "T\(i)") }
        let otherProcess = try AccountStore(path: dir.file("store.sqlite"))
        var sender = ScriptedSender(answers: [])
        sender.onSend = { item in if item.path == "books/b-1" { _ = try? otherProcess.advanceGeneration() } }
        let report = try PushRun(store: store, generation: 0, recordEvery: 100, orEvery: 3600).run(with: &sender).report
        #expect(report.stop == .loggedOut && report.applied == 2)
        #expect(try store.outbox.all().map(\.path) == ["books/b-2", "books/b-3"])
    }

    @Test func unauthorizedStops() throws {
        try enqueue("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.unauthorized])
        let report = try PushRun(store: store, generation: 0).run(with: &sender).report
        #expect(report.stop == .unauthorized)
        #expect(try store.outbox.all().count == 2)
    }
}

@Suite struct SetAsideTests {
    @Test func setAsideAndRestoreKeepOrderKeysAndIdentity() throws {
        let dir = try TemporaryDirectory()
        let aside = SetAsideOutboxes(directory: dir.file("set-aside"))
        let alice = SetAsideOutboxes.identityKey(origin: "http://127.0.0.1:8080", userID: "u-1")
        let bob = SetAsideOutboxes.identityKey(origin: "http://127.0.0.1:8080", userID: "u-2")
        let store = try AccountStore(path: dir.file("alice.sqlite"))
        for i in 0..<5 {
            try store.outbox.enqueue(.change("books/b-\(i)", [("n", .integer(Int64(i)))], etag: "\"1\""))
        }
        let keys = try store.outbox.all().map(\.idempotencyKey)
        #expect(try aside.setAside(from: store, identityKey: alice) == 5)
        #expect(try store.outbox.all().isEmpty)
        #expect(aside.count(for: alice) == 5)
        #expect(aside.count(for: bob) == 0)

        let bobStore = try AccountStore(path: dir.file("bob.sqlite"))
        #expect(try aside.restore(into: bobStore, identityKey: bob) == 0)
        #expect(try bobStore.outbox.all().isEmpty, "another identity never gets alice's writes")

        let again = try AccountStore(path: dir.file("alice2.sqlite"))
        try again.outbox.enqueue(.create("books/new", ["id": "new", "title": "N"]))
        #expect(try aside.restore(into: again, identityKey: alice) == 5)
        let restored = try again.outbox.all()
        #expect(restored.map(\.path) == ["books/new"] + (0..<5).map { "books/b-\($0)" })
        #expect(Array(restored.dropFirst().map(\.idempotencyKey)) == keys)
        #expect(aside.files(for: alice).isEmpty)
    }
}
