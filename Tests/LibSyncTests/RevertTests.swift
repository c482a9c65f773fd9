import LibJSON
import LibSync
import Testing
import TestSupport

/// `lib revert`'s intent: the inverse of a pushed write, against the
/// version lib last saw, or against the version the write made when lib has
/// seen someone change what it would put back (so the push is a conflict).
@Suite struct RevertTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    /// Pushes `write` (the server answers with `etag`) and returns its log entry.
    func pushed(_ write: Outbox.NewWrite, etag: String?) throws -> PushedWrite {
        try store.outbox.enqueue(write)
        let item = try #require(try store.outbox.all().last)
        try store.outbox.recordSuccess(seq: item.seq, document: nil, etag: etag)
        return try #require(try store.pushedLog.last(of: write.path))
    }

    @Test func aChangeIsUndoneFieldByField() throws {
        let base: JSONObject = ["id": "b-9", "title": "Old", "year": 1990]
        var changes = FieldChanges()
        changes["title"] = .some("New")
        changes["tags"] = .some(["x"])
        changes["year"] = .some(nil)
        let entry = try pushed(.init(path: "books/b-9", intent: .change(changes), baseBody: JSONValue.object(base).serialized(),
                                     baseETag: "\"1\""), etag: "\"2\"")
        var expected = FieldChanges()
        expected["title"] = .some("Old")
        expected["tags"] = .some(nil)
        expected["year"] = .some(1990)
        #expect(Reversal.inverse(of: entry) == .change(expected))

        // Lib last saw the version its push made: the revert goes against it.
        let cached = try #require(try store.cache.document(at: "books/b-9"))
        guard case .write(let write, let againstSeen) = Reversal.outcome(undoing: entry, cached: cached) else {
            Issue.record("no write"); return
        }
        #expect(againstSeen && write.baseETag == "\"2\"" && write.baseBody == cached.body)
        try store.outbox.enqueue(write)
        let item = try #require(try store.outbox.all().first)
        #expect(item.ifMatch == "\"2\"")
        #expect(item.documentToSend == base, "the title back, the added field gone, the removed one back")
    }

    @Test func aFieldSomeoneChangedSinceGoesAgainstTheVersionThePushMade() throws {
        let entry = try pushed(.change("books/b-9", [("title", "New")], base: ["id": "b-9", "title": "Old", "copies": 1]),
                               etag: "\"2\"")
        // Lib has since seen bob's title.
        try store.cache.save("books/b-9", body: #"{"id":"b-9","title":"Bob's","copies":1}"#, etag: "\"3\"", at: 0)
        guard case .write(let write, let againstSeen) = Reversal.outcome(undoing: entry, cached: try store.cache.document(at: "books/b-9")) else {
            Issue.record("no write"); return
        }
        #expect(!againstSeen)
        #expect(write.baseETag == "\"2\"", "If-Match the version the push made: the server has moved on, so a 412")
        #expect(write.baseBody.flatMap { try? JSONParser.parse($0) }?.objectValue?["title"] == "New")

        // Someone else's change of another field does not stand in the way.
        try store.cache.save("books/b-9", body: #"{"id":"b-9","title":"New","copies":5}"#, etag: "\"4\"", at: 0)
        guard case .write(let other, true) = Reversal.outcome(undoing: entry, cached: try store.cache.document(at: "books/b-9")) else {
            Issue.record("not against what lib saw"); return
        }
        #expect(other.baseETag == "\"4\"")
        #expect(other.intent.applied(to: ["id": "b-9", "title": "New", "copies": 5]) == ["id": "b-9", "title": "Old", "copies": 5])
    }

    @Test func aChangeAlreadyUndoneLeavesNothingToDo() throws {
        let entry = try pushed(.change("books/b-9", [("title", "New")], base: ["id": "b-9", "title": "Old"]), etag: "\"2\"")
        try store.cache.save("books/b-9", body: #"{"id":"b-9","title":"Old"}"#, etag: "\"3\"", at: 0)
        #expect(Reversal.outcome(undoing: entry, cached: try store.cache.document(at: "books/b-9")) == .nothingToUndo)
    }

    @Test func aCreateIsUndoneByADelete() throws {
        let entry = try pushed(.create("books/n-1", ["id": "n-1", "title": "New"]), etag: "\"1\"")
        #expect(Reversal.inverse(of: entry) == .delete)
        try store.cache.save("books/n-1", body: #"{"id":"n-1","title":"New"}"#, etag: "\"1\"", at: 0)
        guard case .write(let write, true) = Reversal.outcome(undoing: entry, cached: try store.cache.document(at: "books/n-1")) else {
            Issue.record("no write"); return
        }
        #expect(write.intent == .delete && write.baseETag == "\"1\"")
        // Changed by someone since: the delete goes against the created version, and conflicts.
        try store.cache.save("books/n-1", body: #"{"id":"n-1","title":"Bob's"}"#, etag: "\"2\"", at: 0)
        guard case .write(let late, false) = Reversal.outcome(undoing: entry, cached: try store.cache.document(at: "books/n-1")) else {
            Issue.record("not against the created version"); return
        }
        #expect(late.baseETag == "\"1\"")
    }

    @Test func aDeleteIsUndoneByCreatingTheLastVersion() throws {
        let entry = try pushed(.delete("books/b-2", base: ["id": "b-2", "title": "Gone", "year": 1970]), etag: nil)
        #expect(Reversal.inverse(of: entry) == .create(["id": "b-2", "title": "Gone", "year": 1970]))
        guard case .write(let write, true) = Reversal.outcome(undoing: entry, cached: nil) else {
            Issue.record("no write"); return
        }
        try store.outbox.enqueue(write)
        let item = try #require(try store.outbox.all().first)
        #expect(item.createOnly && item.ifMatch == nil && item.baseBody == nil)
    }
}

@Suite struct DocumentIDTests {
    @Test func idsAreTimeOrderedRandomAndWithinTheProtocolsRule() {
        let earlier = DocumentID.make(now: 1_764_600_000.123)
        let later = DocumentID.make(now: 1_764_600_000.124)
        #expect(earlier < later)
        #expect(DocumentID.millisecond(of: earlier) == 1_764_600_000_123)
        let ids = (0..<2000).map { _ in DocumentID.make(now: 1_764_600_000) }
        #expect(Set(ids).count == ids.count, "the same millisecond, 80 random bits apart")
        for id in ids.prefix(50) {
            #expect(id.count == 26 && id.utf8.allSatisfy { ("0"..."9").contains(Character(UnicodeScalar($0))) || ("a"..."z").contains(Character(UnicodeScalar($0))) })
        }
        #expect(DocumentID.make(now: 0).hasPrefix("0000000000"))
        #expect(DocumentID.millisecond(of: "b-7") == nil)
    }
}

@Suite struct PushPlanTests {
    @Test func thePlanSaysWhatIsSentAndWhatWaits() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("store.sqlite"))
        try store.outbox.enqueue(.change("books/b-1", [("title", "A")]))
        try store.outbox.enqueue(.change("books/b-2", [("title", "B")]))
        try store.outbox.enqueue(.create("books/n-1", ["id": "n-1", "title": "N"]))
        let first = try #require(try store.outbox.all().first)
        try store.outbox.markSent(seq: first.seq)
        try store.outbox.enqueue(.change("books/b-1", [("year", 1)], base: ["id": "x", "title": "A"]))
        let b2 = try store.outbox.items(for: "books/b-2")[0]
        try store.outbox.recordConflict(seq: b2.seq, theirsBody: #"{"id":"b-2","title":"Bob"}"#, theirsETag: "\"5\"")
        try store.outbox.enqueue(.delete("books/b-2"))
        let before = try store.outbox.all()

        let plan = PushPlan(items: before)
        #expect(plan.steps.map(\.item.path) == ["books/b-1", "books/b-2", "books/n-1", "books/b-1", "books/b-2"])
        #expect(plan.steps[0] == .send(before[0], .ifMatch("\"1-a\"")))
        #expect(plan.steps[1] == .needsResolving(before[1]))
        #expect(plan.steps[2] == .send(before[2], .create))
        #expect(plan.steps[3] == .send(before[3], .afterPrevious))
        #expect(plan.steps[4] == .waitsBehind(before[4], blocker: b2.seq))
        #expect(plan.sendCount == 3)
        #expect(try store.outbox.all() == before, "nothing changed")
    }
}
