import LibJSON
import LibSync
import Testing
import TestSupport

/// Settling a conflict rebases the write onto the server's version: its
/// intent becomes what turns that version into the chosen result, so the
/// next conflict's "mine" is only what this user changed.
@Suite struct SettlementTests {
    let dir: TemporaryDirectory
    let store: AccountStore
    static let v1: JSONObject = ["id": "b-1", "title": "P&P", "copies": 1]

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    func conflict(theirs: JSONObject, etag: String = "\"2\"") throws -> OutboxItem {
        let write = try #require(try store.outbox.all().first)
        try store.outbox.recordConflict(seq: write.seq, theirsBody: JSONValue.object(theirs).serialized(), theirsETag: etag)
        return try #require(try store.outbox.item(seq: write.seq))
    }

    func merged(_ item: OutboxItem) throws -> FieldMerge {
        FieldMerge(base: try #require(item.base), mine: try #require(item.intent.applied(to: item.base)),
                   theirs: try #require(item.theirs))
    }

    @Test func aMergeRebasesSoTheSecondConflictShowsOnlyMyField() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "Bob's")], base: Self.v1, etag: "\"1\""))
        let first = try conflict(theirs: ["id": "b-1", "title": "P&P", "copies": 11])
        let merge = try merged(first)
        #expect(merge.fromMine == ["title"] && merge.fromTheirs == ["copies"])
        #expect(try Settlement(store: store, write: first, later: []).settle(on: merge.merged) == .requeued)

        let again = try #require(try store.outbox.item(seq: first.seq))
        #expect(again.ifMatch == "\"2\"" && again.intent.fieldNames == ["title"])
        #expect(again.documentToSend?["copies"] == 11, "the server's copies are the base now")
        let second = try conflict(theirs: ["id": "b-1", "title": "P&P", "copies": 1], etag: "\"3\"")
        let next = try merged(second)
        #expect(next.fromMine == ["title"] && next.fromTheirs == ["copies"] && next.isClean,
                "copies is the server's change, not mine: \(next)")
        #expect(FieldMerge(base: try #require(second.base), mine: try #require(second.intent.applied(to: second.base)),
                           theirs: try #require(second.theirs)).merged["copies"] == 1)
    }

    @Test func theirsForTheOnlyFieldDropsTheWriteAndTheNextGoesOnOverTheirs() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "Mine")], base: Self.v1, etag: "\"1\""))
        try store.outbox.markSent(seq: try #require(try store.outbox.all().first).seq)
        try store.outbox.enqueue(.change("books/b-1", [("copies", 5)], base: ["id": "b-1", "title": "Mine", "copies": 1]))
        let items = try store.outbox.all()
        let first = try conflict(theirs: ["id": "b-1", "title": "Theirs", "copies": 1])
        let outcome = try Settlement(store: store, write: first, later: [items[1]])
            .settle(on: ["id": "b-1", "title": "Theirs", "copies": 1])
        #expect(outcome == .nothingToSend)
        let left = try store.outbox.all()
        #expect(left.count == 1 && left[0].ifMatch == "\"2\"")
        #expect(left[0].documentToSend == ["id": "b-1", "title": "Theirs", "copies": 5])
        #expect(try store.cache.document(at: "books/b-1")?.etag == "\"2\"")
    }

    @Test func aLaterWriteThatClashesWithTheirsBecomesTheConflict() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "Mine")], base: Self.v1, etag: "\"1\""))
        try store.outbox.markSent(seq: try #require(try store.outbox.all().first).seq)
        try store.outbox.enqueue(.change("books/b-1", [("title", "Mine again")], base: ["id": "b-1", "title": "Mine", "copies": 1]))
        let items = try store.outbox.all()
        let first = try conflict(theirs: ["id": "b-1", "title": "Theirs", "copies": 1])
        let outcome = try Settlement(store: store, write: first, later: [items[1]])
            .settle(on: ["id": "b-1", "title": "Theirs", "copies": 1])
        #expect(outcome == .nothingToSendNextInConflict)
        let left = try #require(try store.outbox.all().first)
        #expect(left.status == .conflict && left.theirsETag == "\"2\"")
    }

    @Test func deletedOnTheServerMineCreatesItAgain() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "Mine")], base: Self.v1, etag: "\"1\""))
        let write = try #require(try store.outbox.all().first)
        try store.outbox.recordConflict(seq: write.seq, theirsBody: nil, theirsETag: nil)
        let item = try #require(try store.outbox.item(seq: write.seq))
        try Settlement(store: store, write: item, later: []).settle(on: item.intent.applied(to: item.base))
        let again = try #require(try store.outbox.item(seq: write.seq))
        #expect(again.createOnly && again.ifMatch == nil && again.documentToSend?["title"] == "Mine")
    }
}
