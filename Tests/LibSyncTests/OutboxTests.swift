import Foundation
import LibSync
import Testing
import TestSupport

@Suite struct OutboxTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    func put(_ path: String, _ body: String, base: String? = "\"1-a\"", create: Bool = false) -> Outbox.NewWrite {
        Outbox.NewWrite(path: path, method: .put, createOnly: create, body: body, baseBody: #"{"title":"base"}"#, baseETag: create ? nil : base)
    }

    @Test func enqueueKeepsOrderWithFreshKeys() throws {
        try store.outbox.enqueue(put("books/b-1", #"{"title":"one"}"#))
        try store.outbox.enqueue(put("books/b-2", #"{"title":"two"}"#))
        let items = try store.outbox.all()
        #expect(items.map(\.path) == ["books/b-1", "books/b-2"])
        #expect(items[0].idempotencyKey != items[1].idempotencyKey)
        for key in items.map(\.idempotencyKey) {
            // A version 4 UUID, lower case: 8-4-4-4-12 hex digits, version 4, variant 10xx.
            let groups = key.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(key)")
            #expect(key.allSatisfy { "0123456789abcdef-".contains($0) }, "\(key)")
            #expect(groups.count == 5 && groups[2].first == "4" && "89ab".contains(groups[3].first ?? "x"), "\(key)")
        }
        #expect(items[0].ifMatch == "\"1-a\"")
        #expect(items.allSatisfy { $0.status == .pending && $0.attempts == 0 })
        #expect(try store.outbox.counts() == (pending: 2, conflicts: 0, rejected: 0))
    }

    @Test func unattemptedEditsOfOnePathCoalesce() throws {
        let first = try store.outbox.enqueue(put("books/b-7", #"{"title":"A"}"#))
        let second = try store.outbox.enqueue(put("books/b-7", #"{"title":"B"}"#, base: "\"ignored\""))
        guard case .queued(let seq) = first else { Issue.record("first was \(first)"); return }
        #expect(second == .coalesced(seq: seq))
        let items = try store.outbox.all()
        #expect(items.count == 1)
        #expect(items[0].body == #"{"title":"B"}"#)
        #expect(items[0].ifMatch == "\"1-a\"", "the precondition stays the one the first edit saw")
    }

    @Test func anAttemptedWriteNeverChangesAfterwards() throws {
        try store.outbox.enqueue(put("books/b-7", #"{"title":"A"}"#))
        let seq = try #require(try store.outbox.all().first?.seq)
        try store.outbox.markAttempted(seq: seq)
        try store.outbox.enqueue(put("books/b-7", #"{"title":"B"}"#))
        let items = try store.outbox.all()
        #expect(items.map(\.body) == [#"{"title":"A"}"#, #"{"title":"B"}"#])
        #expect(items[1].ifMatch == nil, "filled in from the first write's answer")
    }

    @Test func createThenDeleteBeforeSendingCancelsOut() throws {
        try store.outbox.enqueue(put("books/new", #"{"title":"N"}"#, create: true))
        let outcome = try store.outbox.enqueue(Outbox.NewWrite(path: "books/new", method: .delete, body: nil, baseBody: nil, baseETag: nil))
        #expect(outcome == .cancelled)
        #expect(try store.outbox.all().isEmpty)
        #expect(try store.outbox.counts().pending == 0)
    }

    @Test func successUpdatesCacheAndChainsTheNextPrecondition() throws {
        try store.outbox.enqueue(put("books/b-7", #"{"title":"A"}"#))
        let first = try #require(try store.outbox.nextSendable())
        try store.outbox.markAttempted(seq: first.seq)
        try store.outbox.enqueue(put("books/b-7", #"{"title":"B"}"#))
        try store.outbox.recordSuccess(seq: first.seq, document: #"{"id":"b-7","title":"A"}"#, etag: "\"2-x\"")
        let cached = try #require(try store.cache.document(at: "books/b-7"))
        #expect(cached.body == #"{"id":"b-7","title":"A"}"#)
        #expect(cached.etag == "\"2-x\"")
        let next = try #require(try store.outbox.nextSendable())
        #expect(next.body == #"{"title":"B"}"#)
        #expect(next.ifMatch == "\"2-x\"")
        #expect(try store.outbox.counts().pending == 1)
    }

    @Test func aConflictHoldsLaterWritesOfItsPathOnly() throws {
        try store.outbox.enqueue(put("books/b-7", #"{"title":"A"}"#))
        let a = try #require(try store.outbox.nextSendable())
        try store.outbox.markAttempted(seq: a.seq)
        try store.outbox.enqueue(put("books/b-7", #"{"title":"A2"}"#))
        try store.outbox.enqueue(put("books/b-8", #"{"title":"other"}"#))
        try store.outbox.recordConflict(seq: a.seq, theirsBody: #"{"title":"theirs"}"#, theirsETag: "\"5-t\"")
        let next = try #require(try store.outbox.nextSendable(after: a.seq))
        #expect(next.path == "books/b-8")
        #expect(try store.outbox.nextSendable(after: next.seq) == nil)
        #expect(try store.outbox.counts() == (pending: 2, conflicts: 1, rejected: 0))
        let conflict = try #require(try store.outbox.item(seq: a.seq))
        #expect(conflict.theirsBody == #"{"title":"theirs"}"#)
        #expect(conflict.theirsETag == "\"5-t\"")
    }

    @Test func requeueGivesANewKeyAndPrecondition() throws {
        try store.outbox.enqueue(put("books/b-7", #"{"title":"A"}"#))
        let a = try #require(try store.outbox.nextSendable())
        try store.outbox.recordConflict(seq: a.seq, theirsBody: "{}", theirsETag: "\"5-t\"")
        try store.outbox.requeue(seq: a.seq, body: #"{"title":"A"}"#, method: .put, ifMatch: "\"5-t\"", createOnly: false)
        let again = try #require(try store.outbox.item(seq: a.seq))
        #expect(again.status == .pending)
        #expect(again.ifMatch == "\"5-t\"")
        #expect(again.idempotencyKey != a.idempotencyKey)
        #expect(try store.outbox.counts() == (pending: 1, conflicts: 0, rejected: 0))
    }

    @Test func countsStayRightThroughEveryChange() throws {
        for i in 0..<50 { try store.outbox.enqueue(put("books/c-\(i)", #"{"title":"t"}"#)) }
        let items = try store.outbox.all()
        try store.outbox.recordRejection(seq: items[0].seq, problem: "'year' must be an integer")
        try store.outbox.recordConflict(seq: items[1].seq, theirsBody: nil, theirsETag: nil)
        try store.outbox.recordSuccess(seq: items[2].seq, document: nil, etag: "\"2\"")
        try store.outbox.remove(seq: items[3].seq)
        #expect(try store.outbox.counts() == (pending: 46, conflicts: 1, rejected: 1))
        let recount = try store.database.query("SELECT status, count(*) AS n FROM outbox GROUP BY status ORDER BY status")
        #expect(recount.map { "\($0["status"].text ?? ""):\($0["n"].integer ?? 0)" } == ["conflict:1", "pending:46", "rejected:1"])
    }

    @Test func storeFilesArePrivate() throws {
        let old = umask(0)
        defer { umask(old) }
        let other = try AccountStore(path: dir.file("other.sqlite"))
        try other.outbox.enqueue(put("books/b-1", "{}"))
        let mode = (try FileManager.default.attributesOfItem(atPath: dir.file("other.sqlite"))[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}
