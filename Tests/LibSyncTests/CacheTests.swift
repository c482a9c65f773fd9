import Foundation
import LibSync
import Testing
import TestSupport
import LibBase

@Suite struct CacheTests {
    @Test func savesValidatesAndForgets() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        let t0: UnixSeconds = 1_000_000
        try store.cache.save("books/b-7", body: #"{"title":"Dune"}"#, etag: "\"1\"", at: t0)
        try store.cache.markValidated("books/b-7", at: t0 + 60)
        let doc = try #require(try store.cache.document(at: "books/b-7"))
        #expect(doc.fetchedAt == t0)
        #expect(doc.validatedAt == t0 + 60)
        #expect(doc.json?["title"] == "Dune")
        try store.cache.forget("books/b-7")
        #expect(try store.cache.document(at: "books/b-7") == nil)
    }

    @Test func collectionsRefreshTheirMembers() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        let now = UnixClock.now()
        try store.cache.save("books/b-2", body: #"{"title":"old"}"#, etag: "\"1\"", at: now - 3600)
        try store.cache.saveCollection("books", members: [("books/b-1", #"{"title":"one"}"#, "\"1\""), ("books/b-2", #"{"title":"two"}"#, "\"2\"")], at: now)
        let collection = try #require(try store.cache.collection(at: "books"))
        #expect(collection.members.map(\.path) == ["books/b-1", "books/b-2"])
        #expect(try store.cache.document(at: "books/b-2")?.etag == "\"2\"")
        #expect(try store.cache.paths(withPrefix: "books/b-") == ["books/b-1", "books/b-2"])
    }

    @Test func readOnlyOpeningCreatesNothing() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: (any Error).self) { try AccountStore(readingFrom: dir.file("missing.sqlite")) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("missing.sqlite")))
    }
}
