import Foundation
import LibBase
import LibJSON
import LibStore
import LibSync
import Testing
import TestSupport

/// `lib search` over the store: FTS5 over title, author and tags with
/// prefixes, best matches first, the unsent writes applied, and the index
/// kept by the cache's own statements (never out of step with it).
@Suite struct LibrarySearchTests {
    static let books: [(String, String)] = [
        ("books/b-1", #"{"id":"b-1","title":"Pride and Prejudice","author":"Jane Austen","year":1813,"tags":["classic","romance"]}"#),
        ("books/b-7", #"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"tags":["sf"]}"#),
        ("books/b-8", #"{"id":"b-8","title":"Dune Messiah","author":"Frank Herbert","year":1969,"tags":["sf","sequel"]}"#),
        ("books/b-9", #"{"id":"b-9","title":"Émile","author":"Rousseau","year":1762}"#),
    ]

    func store(_ dir: TemporaryDirectory) throws -> AccountStore {
        let store = try AccountStore(path: dir.file("s.sqlite"))
        try store.cache.saveCollection("books", members: Self.books.map { ($0.0, $0.1, "\"1\"") }, at: UnixClock.now())
        return store
    }

    func ids(_ store: AccountStore, _ text: String, order: LibrarySearch.Order = .relevance, limit: Int = 50) throws -> [String] {
        try store.search.run(try #require(SearchQuery(text)), order: order, limit: limit).map(\.path)
    }

    @Test func wordsArePrefixesOverTitleAuthorAndTagsAllRequired() throws {
        let dir = try TemporaryDirectory()
        let store = try store(dir)
        #expect(Set(try ids(store, "dun")) == ["books/b-7", "books/b-8"])
        #expect(try ids(store, "dune herb mess") == ["books/b-8"])
        #expect(try ids(store, "austen") == ["books/b-1"])
        #expect(try ids(store, "romance") == ["books/b-1"], "tags are indexed")
        #expect(try ids(store, "emile") == ["books/b-9"], "diacritics do not matter")
        #expect(try ids(store, "1965").isEmpty, "the year is not text")
        #expect(try ids(store, #"dune" OR "x* NEAR(a"#).isEmpty, "nothing typed is FTS5 syntax")
        #expect(SearchQuery("  -- ** ") == nil)
    }

    @Test func bestMatchesComeFirstOrTheFieldAsked() throws {
        let dir = try TemporaryDirectory()
        let store = try store(dir)
        #expect(try ids(store, "dune").first == "books/b-7", "a short title that is the word ranks first")
        #expect(try ids(store, "frank", order: .field("year")) == ["books/b-7", "books/b-8"])
        #expect(try ids(store, "frank", order: .field("title"), limit: 1) == ["books/b-7"])
        #expect(try ids(store, "herbert", limit: 1).count == 1)
    }

    @Test func theIndexFollowsEveryChangeOfTheCache() throws {
        let dir = try TemporaryDirectory()
        let store = try store(dir)
        try store.cache.save("books/b-7", body: #"{"id":"b-7","title":"Children of Dune","author":"Frank Herbert"}"#, etag: "\"2\"",
                             at: UnixClock.now())
        #expect(try ids(store, "children") == ["books/b-7"])
        try store.cache.forget("books/b-8")
        #expect(try ids(store, "messiah").isEmpty)
        // A write rolled back leaves the index as the cache: both as before.
        _ = try? store.database.write { db -> Void in
            _ = db
            try store.cache.save("books/b-1", body: #"{"id":"b-1","title":"Rolled back"}"#, etag: "\"3\"", at: 0)
            throw DatabaseError(extendedCode: 1, message: "stop", path: nil)
        }
        #expect(try ids(store, "rolled").isEmpty && (try ids(store, "prejudice")) == ["books/b-1"])
        let indexed = try store.database.scalar("SELECT count(*) FROM library_index")?.integer
        #expect(indexed == Int64(store.cache.count), "one index row per cached book")
    }

    @Test func aPendingEditIsFoundByItsNewTextAndAPendingDeleteIsNotFound() throws {
        let dir = try TemporaryDirectory()
        let store = try store(dir)
        let dune = try #require(JSONParser.parse(Self.books[1].1).objectValue)
        var renamed = dune
        renamed["title"] = "Arrakis"
        _ = try store.outbox.enqueue(.init(path: "books/b-7", intent: .change(FieldChanges(from: dune, to: renamed)),
                                           baseBody: Self.books[1].1, baseETag: "\"1\""))
        let pride = try #require(JSONParser.parse(Self.books[0].1).objectValue)
        _ = try store.outbox.enqueue(.init(path: "books/b-1", intent: .delete, baseBody: Self.books[0].1, baseETag: "\"1\""))
        _ = try store.outbox.enqueue(.init(path: "books/n-1", intent: .create(["id": "n-1", "title": "Dune Encyclopedia"]),
                                           baseBody: nil, baseETag: nil))
        #expect(try ids(store, "arrakis") == ["books/b-7"], "the new text")
        #expect(Set(try ids(store, "dune")) == ["books/b-8", "books/n-1"], "not by its old title; a pending create is found")
        #expect(try ids(store, "austen").isEmpty && (try ids(store, "prejudice")).isEmpty, "a pending delete is not found")
        _ = pride
        let found = try store.search.run(try #require(SearchQuery("arrakis")), limit: 5)
        #expect(found.first?.document?["title"] == "Arrakis" && found.first?.writes.count == 1)
        // From a read-only store too (what `lib search` opens).
        let reader = try AccountStore(readingFrom: dir.file("s.sqlite"))
        #expect(try ids(reader, "arrakis") == ["books/b-7"])
    }
}

/// The offline library's copy and the feed's cursor (LibraryMirror).
@Suite struct LibraryMirrorTests {
    @Test func aListingReplacesTheCollectionAndTheFeedUpdatesItWithDeletions() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        let mirror = store.mirror(of: "books")
        #expect(try mirror.cursor() == nil)
        try store.cache.save("books/gone", body: #"{"id":"gone","title":"Gone"}"#, etag: "\"1\"", at: 0)
        try mirror.beginListing(cursor: "e-5")
        try mirror.storeListed([("books/b-2", #"{"id":"b-2","title":"Two"}"#, "\"1\""),
                                ("books/b-10", #"{"id":"b-10","title":"Ten"}"#, "\"1\"")], after: nil, next: nil, at: 10)
        #expect(try mirror.cursor() == nil, "not before the listing is complete")
        try mirror.finishListing(at: 10)
        #expect(try mirror.cursor() == "e-5")
        #expect(try store.cache.document(at: "books/gone") == nil, "what the listing no longer has is forgotten")
        #expect(try store.cache.collection(at: "books")?.members.map(\.path) == ["books/b-10", "books/b-2"], "byte order, as the server lists")
        try mirror.apply([.init(path: "books/b-2", body: nil, etag: "\"2\""),
                          .init(path: "books/b-3", body: #"{"id":"b-3","title":"Three"}"#, etag: "\"1\"")], cursor: "e-7", at: 20)
        #expect(try mirror.cursor() == "e-7")
        #expect(try store.cache.collection(at: "books")?.members.map(\.path) == ["books/b-10", "books/b-3"])
        #expect(try store.cache.document(at: "books/b-2") == nil)
        #expect(try store.search.run(try #require(SearchQuery("two")), limit: 5).isEmpty, "the index follows the deletion")
        try mirror.apply([], cursor: "e-7", at: 30)
        #expect(try store.cache.collection(at: "books")?.fetchedAt == 30)
    }
}
