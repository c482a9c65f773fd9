import Foundation
import LibStore
@testable import LibSync
import Testing
import TestSupport

/// A store made by the previous release (migrations 001–003: the 20 demo
/// books cached by `lib get books`, an edit of b-7's title, a delete of b-3
/// and a create of n-1 pending; Fixtures/store-before-library-index.sqlite,
/// made with this branch's `lib` against a demo lib-server and then stripped
/// of exactly what `005-library-index` adds) gains the search index and
/// keeps everything it had.
@Suite struct LibraryIndexMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-before-library-index.sqlite").path

    func copyOfFixture(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("store.sqlite")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        return path
    }

    /// What the store holds, read with plain SQL: the same before and after.
    func contents(_ path: String) throws -> [String] {
        let db = try Database(path: path)
        return try ["SELECT path, body, etag FROM documents ORDER BY path",
                    "SELECT seq, path, method, body, base_body, base_etag, idempotency_key, status FROM outbox ORDER BY seq",
                    "SELECT path, members FROM collections ORDER BY path"].flatMap { sql in
            try db.query(sql).map { row in row.values.map { $0.text ?? ($0.integer.map(String.init) ?? "∅") }.joined(separator: "|") }
        }
    }

    @Test func theMigrationAddsTheIndexAndKeepsEveryDocumentAndWrite() throws {
        let dir = try TemporaryDirectory()
        let path = try copyOfFixture(dir)
        let before = try contents(path)
        #expect(before.count == 20 + 3 + 1, "the fixture: 20 cached books, 3 writes, the collection")
        let store = try AccountStore(path: path)
        #expect(try contents(path) == before, "nothing lost or changed")
        #expect(try store.database.scalar("SELECT count(*) FROM library_index")?.integer == 20, "every cached book indexed")
        #expect(try store.database.scalar("SELECT 1 FROM schema_migrations WHERE name = '005-library-index'") != nil)
        func ids(_ text: String) throws -> [String] { try store.search.run(try #require(SearchQuery(text)), limit: 20).map(\.path) }
        #expect(try ids("annotated") == ["books/b-7"], "the pending edit, by its new title")
        #expect(try ids("herbert") == ["books/b-7"])
        #expect(try ids("alice") == ["books/n-1"], "the pending create")
        #expect(try ids("darkness").isEmpty && (try ids("pride")) == ["books/b-1"], "b-3, deleted on this device, is not found")
        #expect(try store.outbox.counts() == (pending: 3, conflicts: 0, rejected: 0))
        #expect(try store.mirror(of: "books").cursor() == nil, "the next pull lists everything once")
    }

    /// `lib search` opens the store read-only; an old store is migrated first, once.
    @Test func aReadOnlyOpeningMigratesAnOldStoreOnce() throws {
        let dir = try TemporaryDirectory()
        let path = try copyOfFixture(dir)
        let reader = try AccountStore(readingFrom: path)
        #expect(try reader.search.run(try #require(SearchQuery("le guin")), limit: 5).map(\.path) == [])
        #expect(try reader.search.run(try #require(SearchQuery("annot")), limit: 5).map(\.path) == ["books/b-7"])
        let again = try AccountStore(readingFrom: path)
        #expect(try again.database.scalar("SELECT count(*) FROM schema_migrations")?.integer == 10, "001–003, then 004 to 010")
    }

    /// A store 005 migrated when triggers kept the index loses them (they
    /// would index every change twice, and each open parses them), and the
    /// cache's writes keep its index from then on.
    @Test func aStoreIndexedByTriggersLosesThemAndStaysIndexed() throws {
        let dir = try TemporaryDirectory()
        let path = try copyOfFixture(dir)
        do {
            var migrator = Migrator()
            for migration in AccountStoreSchema.migrator.migrations where migration.name <= LibraryIndexSchema.name {
                migrator.register(migration.name, migration.apply)
            }
            try migrator.migrate(try Database(path: path))
        }
        let triggers = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'library_index%'"
        #expect(try Database(path: path).scalar(triggers)?.integer == 3, "the store as the previous release left it")
        let store = try AccountStore(path: path)
        #expect(try store.database.scalar(triggers)?.integer == 0)
        try store.cache.save("books/b-1", body: #"{"id":"b-1","title":"Persuasion","author":"Jane Austen"}"#, etag: "\"9\"", at: 0)
        try store.cache.forget("books/b-2")
        try store.cache.save("books/z-1", body: #"{"id":"z-1","title":"Sanditon"}"#, etag: "\"1\"", at: 0)
        func ids(_ text: String) throws -> [String] { try store.search.run(try #require(SearchQuery(text)), limit: 20).map(\.path) }
        #expect(try ids("persuasion") == ["books/b-1"] && (try ids("pride")).isEmpty)
        #expect(try ids("sanditon") == ["books/z-1"])
        #expect(try store.database.scalar("SELECT count(*) FROM library_index")?.integer == Int64(store.cache.count),
                "one index row per cached book, none twice")
        #expect(try store.database.scalar("SELECT count(*) FROM library_index_rows")?.integer == Int64(store.cache.count))
    }

    /// A store indexed before 008 holds "Søren" as "søren", which `soren`
    /// never found: 008 indexes every cached book again, its letters folded.
    @Test func aStoreIndexedBeforeFoldingIsIndexedAgain() throws {
        let dir = try TemporaryDirectory()
        let path = try copyOfFixture(dir)
        do {
            var migrator = Migrator()
            for migration in AccountStoreSchema.migrator.migrations where migration.name < LibraryIndexSchema.lettersFolded {
                migrator.register(migration.name, migration.apply)
            }
            let db = try Database(path: path)
            try migrator.migrate(db)
            try db.execute("""
                INSERT INTO documents (path, body, etag, fetched_at, validated_at)
                    VALUES ('books/s-1', '{"id":"s-1","title":"Søren Kierkegaard","author":"Joakim Garff"}', '"1"', 0, 0);
                INSERT INTO library_index_rows (path, docid) VALUES ('books/s-1', 1000);
                INSERT INTO library_index (rowid, path, title, author, tags)
                    SELECT r.docid, d.path, \(LibraryIndexSchema.columns("d.body", folded: false))
                    FROM documents d JOIN library_index_rows r ON r.path = d.path WHERE d.path = 'books/s-1';
                """)
            #expect(try db.scalar("SELECT count(*) FROM library_index WHERE library_index MATCH '\"soren\"*'")?.integer == 0,
                    "the store as the previous release left it")
        }
        let store = try AccountStore(path: path)
        func ids(_ text: String) throws -> [String] { try store.search.run(try #require(SearchQuery(text)), limit: 20).map(\.path) }
        #expect(try ids("soren") == ["books/s-1"])
        #expect(try ids("Søren") == ["books/s-1"])
        #expect(try ids("pride") == ["books/b-1"], "the other books indexed again too")
        #expect(try store.database.scalar("SELECT count(*) FROM library_index")?.integer == Int64(store.cache.count))
    }
}
