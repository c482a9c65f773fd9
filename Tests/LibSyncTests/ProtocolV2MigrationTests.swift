import Foundation
import LibStore
@testable import LibSync
import Testing
import TestSupport

/// Migration `007-protocol-v2`: a write a lib from before v2 may have sent
/// keeps going as v1 (the server recorded its key with a v1 request); a
/// write never sent goes in the protocol of the push that first sends it.
@Suite struct ProtocolV2MigrationTests {
    @Test func aWriteThatMayHaveBeenSentKeepsProtocolV1() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.sqlite")
        do {
            let old = try AccountStore(path: path)
            try old.outbox.enqueue(.change("books/b-1", [("title", "Sent once")]))
            try old.outbox.enqueue(.change("books/b-2", [("title", "Claimed by a push that died")]))
            try old.outbox.enqueue(.change("books/b-3", [("title", "Never sent")]))
            // The store as a lib from before v2 left it.
            try old.database.execute("""
                UPDATE outbox SET attempts = 1 WHERE path = 'books/b-1';
                UPDATE outbox SET claimed = 1 WHERE path = 'books/b-2';
                ALTER TABLE outbox DROP COLUMN sent_with;
                ALTER TABLE pushed_log DROP COLUMN merged;
                DELETE FROM schema_migrations WHERE name = '007-protocol-v2';
                """)
        }
        let store = try AccountStore(path: path)
        let sentWith = try store.outbox.all().map { "\($0.path) \($0.sentWith ?? "-")" }
        #expect(sentWith == ["books/b-1 v1", "books/b-2 v1", "books/b-3 -"])
        try store.outbox.claimSendable(sendingWith: "v2")
        #expect(try store.outbox.all().map { $0.sentWith ?? "-" } == ["v1", "v1", "v2"])
    }
}
