import Foundation
import LibJSON
@testable import LibSync
import Testing
import TestSupport

@Suite struct OutboxTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    @Test func enqueueKeepsOrderWithFreshKeys() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "one")]))
        try store.outbox.enqueue(.change("books/b-2", [("title", "two")]))
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
        #expect(items.allSatisfy { $0.status == .pending && $0.attempts == 0 && !$0.claimed })
        #expect(try store.outbox.counts() == (pending: 2, conflicts: 0, rejected: 0))
    }

    @Test func aWriteKeepsTheFieldsChangedNotTheDocument() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "one")], base: ["id": "b-1", "title": "base", "copies": 1]))
        let item = try #require(try store.outbox.all().first)
        #expect(item.intent == .change(FieldChanges(from: ["title": "base"], to: ["title": "one"])))
        #expect(item.intent.fieldNames == ["title"])
        #expect(item.sentText == #"{"id":"b-1","title":"one","copies":1}"#)
    }

    @Test func unsentEditsOfOnePathMergeTheirIntents() throws {
        let first = try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let second = try store.outbox.enqueue(.change("books/b-7", [("copies", 4)], base: ["id": "x", "title": "A"], etag: "\"ignored\""))
        guard case .queued(let seq) = first else { Issue.record("first was \(first)"); return }
        #expect(second == .coalesced(seq: seq))
        let items = try store.outbox.all()
        #expect(items.count == 1)
        #expect(items[0].intent.fieldNames == ["title", "copies"])
        #expect(items[0].sentText == #"{"id":"x","title":"A","copies":4}"#)
        #expect(items[0].ifMatch == "\"1-a\"", "the precondition stays the one the first edit saw")
    }

    @Test func aSentWriteNeverChangesAfterwards() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let seq = try #require(try store.outbox.all().first?.seq)
        try store.outbox.markSent(seq: seq)
        try store.outbox.enqueue(.change("books/b-7", [("title", "B")], base: ["id": "x", "title": "A"]))
        let items = try store.outbox.all()
        #expect(items.map(\.intent.fieldNames) == [["title"], ["title"]])
        #expect(items[0].mayBeOnServer && !items[1].mayBeOnServer)
        #expect(items[1].ifMatch == nil, "it goes against the first write's answer")
    }

    @Test func aWriteAPushNeverSentStaysUnsent() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        try store.outbox.enqueue(.change("books/b-8", [("title", "B")]))
        try store.outbox.claimSendable()
        #expect(try store.outbox.all().allSatisfy(\.mayBeOnServer), "claimed: a push that dies may have sent them")
        let first = try #require(try store.outbox.all().first)
        try store.outbox.record([], failure: .init(seq: first.seq, error: "connection refused", sent: false), finished: true)
        let items = try store.outbox.all()
        #expect(items.allSatisfy { !$0.mayBeOnServer && $0.isUnsent }, "refused: nothing reached the server")
        #expect(items[0].lastError == "connection refused")
    }

    @Test func aClaimLeftByAPushThatDiedCountsAsSent() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        try store.outbox.claimSendable()
        try store.outbox.claimSendable()  // the next push, after a kill -9
        try store.outbox.record([], finished: true)
        let item = try #require(try store.outbox.all().first)
        #expect(item.attempts == 1 && item.mayBeOnServer)
        try store.outbox.enqueue(.change("books/b-7", [("title", "B")], base: ["id": "x", "title": "A"]))
        #expect(try store.outbox.all().count == 2, "no edit merges into a write that may be on the server")
    }

    @Test func createThenDeleteBeforeSendingCancelsOut() throws {
        try store.outbox.enqueue(.create("books/new", ["id": "new", "title": "N"]))
        let outcome = try store.outbox.enqueue(.delete("books/new", base: ["id": "new", "title": "N"], etag: nil))
        #expect(outcome == .cancelled)
        #expect(try store.outbox.all().isEmpty)
        #expect(try store.outbox.counts().pending == 0)
    }

    @Test func successRebasesTheNextWriteOntoTheAnswer() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let first = try #require(try store.outbox.nextSendable())
        try store.outbox.markSent(seq: first.seq)
        try store.outbox.enqueue(.change("books/b-7", [("year", 1965)], base: ["id": "x", "title": "A"]))
        try store.outbox.recordSuccess(seq: first.seq, document: #"{"id":"x","title":"A","copies":9}"#, etag: "\"2-x\"")
        let cached = try #require(try store.cache.document(at: "books/b-7"))
        #expect(cached.body == #"{"id":"x","title":"A","copies":9}"#)
        #expect(cached.etag == "\"2-x\"")
        let next = try #require(try store.outbox.nextSendable())
        #expect(next.ifMatch == "\"2-x\"")
        #expect(next.sentText == #"{"id":"x","title":"A","copies":9,"year":1965}"#, "the server's copies are kept")
        #expect(try store.outbox.counts().pending == 1)
    }

    @Test func aNextWriteThatClashesWithTheAnswerBecomesAConflict() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let first = try #require(try store.outbox.nextSendable())
        try store.outbox.markSent(seq: first.seq)
        // Made when the title was "base": the answer has another title, from elsewhere.
        try store.outbox.enqueue(.change("books/b-7", [("title", "B")]))
        try store.outbox.recordSuccess(seq: first.seq, document: #"{"id":"x","title":"other"}"#, etag: "\"2-x\"")
        let next = try #require(try store.outbox.all().first)
        #expect(next.status == .conflict)
        #expect(next.theirsBody == #"{"id":"x","title":"other"}"# && next.theirsETag == "\"2-x\"")
    }

    @Test func aConflictHoldsLaterWritesOfItsPathOnly() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let a = try #require(try store.outbox.nextSendable())
        try store.outbox.markSent(seq: a.seq)
        try store.outbox.enqueue(.change("books/b-7", [("title", "A2")], base: ["id": "x", "title": "A"]))
        try store.outbox.enqueue(.change("books/b-8", [("title", "other")]))
        try store.outbox.recordConflict(seq: a.seq, theirsBody: #"{"title":"theirs"}"#, theirsETag: "\"5-t\"")
        let next = try #require(try store.outbox.nextSendable(after: a.seq))
        #expect(next.path == "books/b-8")
        #expect(try store.outbox.nextSendable(after: next.seq) == nil)
        #expect(try store.outbox.counts() == (pending: 2, conflicts: 1, rejected: 0))
        let conflict = try #require(try store.outbox.item(seq: a.seq))
        #expect(conflict.theirsBody == #"{"title":"theirs"}"#)
        #expect(conflict.theirsETag == "\"5-t\"")
    }

    @Test func requeueGivesANewKeyAndBase() throws {
        try store.outbox.enqueue(.change("books/b-7", [("title", "A")]))
        let a = try #require(try store.outbox.nextSendable())
        try store.outbox.recordConflict(seq: a.seq, theirsBody: #"{"id":"x","title":"T","copies":2}"#, theirsETag: "\"5-t\"")
        try store.outbox.requeue(seq: a.seq, intent: a.intent, baseBody: #"{"id":"x","title":"T","copies":2}"#, baseETag: "\"5-t\"")
        let again = try #require(try store.outbox.item(seq: a.seq))
        #expect(again.status == .pending)
        #expect(again.ifMatch == "\"5-t\"")
        #expect(again.sentText == #"{"id":"x","title":"A","copies":2}"#)
        #expect(again.idempotencyKey != a.idempotencyKey)
        #expect(try store.outbox.counts() == (pending: 1, conflicts: 0, rejected: 0))
    }

    @Test func countsStayRightThroughEveryChange() throws {
        for i in 0..<50 { try store.outbox.enqueue(.change("books/c-\(i)", [("title", "t")])) }
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
        try other.outbox.enqueue(.change("books/b-1", [("title", "t")]))
        let mode = (try FileManager.default.attributesOfItem(atPath: dir.file("other.sqlite"))[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}
