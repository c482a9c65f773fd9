import Foundation
import LibSync
import Testing
import TestSupport

/// A server stand-in that answers from a script and remembers what it was sent.
struct ScriptedSender: WriteSender {
    var answers: [WriteOutcome]
    var sent: [OutboxItem] = []
    var onSend: ((OutboxItem) -> Void)?

    mutating func send(_ item: OutboxItem) -> WriteOutcome {
        sent.append(item)
        onSend?(item)
        return answers.isEmpty ? .applied(document: nil, etag: "\"e\(sent.count)\"") : answers.removeFirst()
    }
}

@Suite struct PushRunTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    func enqueue(_ path: String, _ title: String, base: String = "\"1\"") throws {
        try store.outbox.enqueue(.init(path: path, method: .put, body: #"{"title":"\#(title)"}"#, baseBody: "{}", baseETag: base))
    }

    @Test func sendsInOrderChainingETagsOfOnePath() throws {
        try enqueue("books/b-1", "A")
        let first = try #require(try store.outbox.all().first)
        try store.outbox.markAttempted(seq: first.seq)  // so that the next edit queues instead of merging
        try enqueue("books/b-1", "B")
        try enqueue("books/b-2", "C")
        var sender = ScriptedSender(answers: [])
        let report = try PushRun(store: store, generation: 0).run(with: &sender)
        #expect(report == { var r = PushReport(); r.applied = 3; return r }())
        #expect(sender.sent.map(\.body) == [#"{"title":"A"}"#, #"{"title":"B"}"#, #"{"title":"C"}"#])
        #expect(sender.sent.map(\.ifMatch) == ["\"1\"", "\"e1\"", "\"1\""])
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func temporaryFailureStopsAndKeepsOrderAndKey() throws {
        try enqueue("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.temporary(reason: "connection refused", retryAfter: nil)])
        let report = try PushRun(store: store, generation: 0).run(with: &sender)
        #expect(report.stop == .temporary(reason: "connection refused", retryAfter: nil))
        #expect(sender.sent.count == 1)
        let items = try store.outbox.all()
        #expect(items.map(\.path) == ["books/b-1", "books/b-2"])
        #expect(items[0].attempts == 1)
        #expect(items[0].lastError == "connection refused")
        var again = ScriptedSender(answers: [])
        _ = try PushRun(store: store, generation: 0).run(with: &again)
        #expect(again.sent.first?.idempotencyKey == sender.sent.first?.idempotencyKey, "a retry reuses its key")
        #expect(try store.outbox.all().isEmpty)
    }

    @Test func conflictHoldsItsPathAndOthersGoOn() throws {
        try enqueue("books/b-1", "A")
        let a = try #require(try store.outbox.all().first)
        try store.outbox.markAttempted(seq: a.seq)
        try enqueue("books/b-1", "A2")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.conflict(theirs: #"{"title":"T"}"#, etag: "\"9\""), .applied(document: nil, etag: "\"2\"")])
        let report = try PushRun(store: store, generation: 0).run(with: &sender)
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
        let report = try PushRun(store: store, generation: generation).run(with: &sender)
        #expect(report.stop == .loggedOut)
        #expect(sender.sent.count == 1, "the request already on the wire finishes; nothing after it")
        #expect(try store.outbox.all().map(\.path) == ["books/b-2"])
    }

    @Test func unauthorizedStops() throws {
        try enqueue("books/b-1", "A")
        try enqueue("books/b-2", "B")
        var sender = ScriptedSender(answers: [.unauthorized])
        let report = try PushRun(store: store, generation: 0).run(with: &sender)
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
            try store.outbox.enqueue(.init(path: "books/b-\(i)", method: .put, body: "{\"n\":\(i)}", baseBody: nil, baseETag: "\"1\""))
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
        try again.outbox.enqueue(.init(path: "books/new", method: .put, body: "{}", baseBody: nil, baseETag: "\"1\""))
        #expect(try aside.restore(into: again, identityKey: alice) == 5)
        let restored = try again.outbox.all()
        #expect(restored.map(\.path) == ["books/new"] + (0..<5).map { "books/b-\($0)" })
        #expect(Array(restored.dropFirst().map(\.idempotencyKey)) == keys)
        #expect(aside.files(for: alice).isEmpty)
    }
}
