import Foundation
import LibJSON
import LibSync
import Testing
import TestSupport

/// The log of pushed writes: written with each recorded success, in its
/// transaction; newest first; bounded; there in a store made before it.
@Suite struct PushedLogTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    @Test func eachSuccessIsLoggedNewestFirstWithItsFieldsAndVersion() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "One")], base: ["id": "b-1", "title": "Old", "year": 1990]))
        try store.outbox.enqueue(.delete("books/b-2", base: ["id": "b-2", "title": "Gone"]))
        try store.outbox.enqueue(.create("books/n-1", ["id": "n-1", "title": "New"]))
        let items = try store.outbox.all()
        try store.outbox.record([
            OutboxAnswer(seq: items[0].seq, outcome: .applied(document: #"{"id":"b-1","title":"One","year":1990}"#, etag: "\"2-a\"")),
            OutboxAnswer(seq: items[1].seq, outcome: .applied(document: nil, etag: nil)),
            OutboxAnswer(seq: items[2].seq, outcome: .applied(document: #"{"id":"n-1","title":"New"}"#, etag: "\"1-n\"")),
        ], finished: true, now: 1000)
        let log = try store.pushedLog.entries()
        #expect(log.map(\.path) == ["books/n-1", "books/b-2", "books/b-1"])
        #expect(log.map(\.kind) == [.create, .delete, .change])
        #expect(log.map(\.etag) == ["\"1-n\"", nil, "\"2-a\""])
        #expect(log[2].intent.fieldNames == ["title"])
        #expect(log[2].base?["title"] == "Old", "the version it was sent against")
        #expect(log[2].made?["title"] == "One")
        #expect(log[1].base?["title"] == "Gone", "a delete keeps the document it deleted")
        #expect(log.allSatisfy { $0.pushedAt == 1000 })
        #expect(try store.outbox.all().isEmpty)
        #expect(try store.pushedLog.entries(path: "books/b-1").map(\.kind) == [.change])
        #expect(try store.pushedLog.entries(limit: 1).map(\.path) == ["books/n-1"])
        #expect(try store.pushedLog.last(of: "books/zz") == nil)
    }

    @Test func onlySuccessesAreLogged() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "One")]))
        try store.outbox.enqueue(.change("books/b-2", [("title", "Two")]))
        let items = try store.outbox.all()
        try store.outbox.record([
            OutboxAnswer(seq: items[0].seq, outcome: .conflict(theirs: #"{"id":"x","title":"Bob"}"#, etag: "\"3\"")),
            OutboxAnswer(seq: items[1].seq, outcome: .rejected(problem: "no")),
        ], finished: true)
        #expect(try store.pushedLog.count() == 0)
    }

    @Test func aSuccessThatIsNotCommittedIsNotLogged() throws {
        try store.outbox.enqueue(.change("books/b-1", [("title", "One")]))
        let seq = try #require(try store.outbox.all().first?.seq)
        // The cache write after the log's fails: the same transaction takes both back.
        try store.database.execute("CREATE TRIGGER fail BEFORE INSERT ON documents BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        #expect(throws: (any Error).self) {
            try store.outbox.recordSuccess(seq: seq, document: #"{"id":"x","title":"One"}"#, etag: "\"2\"")
        }
        #expect(try store.pushedLog.count() == 0)
        #expect(try store.outbox.all().count == 1)
    }

    @Test func theLogKeepsTheNewestTenThousand() throws {
        // Filled the way a long life of pushes would: through the outbox.
        try store.database.write { db in
            for i in 0..<(PushedLog.limit + 25) {
                try db.run("""
                    INSERT INTO outbox (path, method, changes, base_body, base_etag, if_match, idempotency_key, created_at, updated_at)
                    VALUES (?1, 'PUT', '{"set":{"title":"T"},"remove":[]}', '{"id":"x","title":"B"}', '"1"', '"1"', ?2, 0, 0)
                    """, [.text("books/b-\(i)"), .text("key-\(i)")])
            }
        }
        let seqs = try store.outbox.all().map(\.seq)
        try store.outbox.record(seqs.map { OutboxAnswer(seq: $0, outcome: .applied(document: nil, etag: "\"2\"")) }, finished: true)
        #expect(try store.pushedLog.count() == PushedLog.limit)
        let entries = try store.pushedLog.entries()
        #expect(entries.first?.path == "books/b-\(PushedLog.limit + 24)")
        #expect(entries.last?.path == "books/b-25", "the oldest 25 were dropped")
    }

    /// A store made by the release before the log (migrations up to
    /// 003-intents) opens with an empty log, for writing and for reading,
    /// and logs from then on.
    @Test func aStoreFromThePreviousReleaseGainsTheLog() throws {
        let path = dir.file("old.sqlite")
        do {
            let old = try AccountStore(path: path)
            try old.outbox.enqueue(.change("books/b-1", [("title", "One")]))
            try old.database.execute("""
                DROP TRIGGER pushed_log_bound; DROP TABLE pushed_log;
                DELETE FROM schema_migrations WHERE name = '004-pushed-log';
                ALTER TABLE outbox DROP COLUMN sent_with;
                DELETE FROM schema_migrations WHERE name = '007-protocol-v2';
                ALTER TABLE outbox DROP COLUMN reverts;
                DELETE FROM schema_migrations WHERE name = '009-reverts-logged';
                """)
        }
        let reader = try AccountStore(readingFrom: path)
        #expect(try reader.pushedLog.count() == 0)
        #expect(try reader.outbox.all().count == 1)
        let store = try AccountStore(path: path)
        let seq = try #require(try store.outbox.all().first?.seq)
        try store.outbox.recordSuccess(seq: seq, document: nil, etag: "\"2\"")
        #expect(try store.pushedLog.entries().map(\.path) == ["books/b-1"])
    }

    @Test func theOldestFixtureMigratesThroughTheLog() throws {
        let path = dir.file("fixture.sqlite")
        try FileManager.default.copyItem(atPath: WholeDocumentWritesTests.fixture, toPath: path)
        let store = try AccountStore(readingFrom: path)
        #expect(try store.pushedLog.count() == 0)
        #expect(try store.outbox.all().count == 5)
    }
}
