import LibStore

/// The migrations of an account's store: its cache and its outbox. Append only.
enum AccountStoreSchema {
    /// Every migration's name, in order.
    static let names = migrator.migrations.map { $0.name }
    /// How many of them a store has applied (all of them: it needs none).
    /// (Built by a loop: `joined(separator:)` would look up an associated
    /// type witness at run time, 0.1 M instructions at every start.)
    static let countApplied: String = {
        var sql = "SELECT count(*) FROM schema_migrations WHERE name IN ("
        for name in names { sql += (sql.hasSuffix("(") ? "'" : ", '") + name + "'" }
        return sql + ")"
    }()

    static var migrator: Migrator {
        var m = Migrator()
        m.register("001-cache", sql: """
            CREATE TABLE documents (
                path TEXT PRIMARY KEY NOT NULL,   -- 'books/b-7'
                body TEXT NOT NULL,               -- the JSON document as the server sent it
                etag TEXT,
                fetched_at REAL NOT NULL,         -- when the body was last received (unix seconds)
                validated_at REAL NOT NULL        -- when the server last said it was current (200 or 304)
            ) WITHOUT ROWID;
            CREATE TABLE collections (
                path TEXT PRIMARY KEY NOT NULL,   -- 'books'
                members TEXT NOT NULL,            -- member paths, one per line, in the server's order
                fetched_at REAL NOT NULL
            ) WITHOUT ROWID;
            """)
        m.register("002-outbox", sql: """
            CREATE TABLE outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,     -- the order writes are sent in
                path TEXT NOT NULL,
                method TEXT NOT NULL CHECK (method IN ('PUT', 'DELETE')),
                create_only INTEGER NOT NULL DEFAULT 0,    -- PUT with If-None-Match: *
                body TEXT,                                 -- the new document (NULL for DELETE)
                base_body TEXT,                            -- the document the edit was made against
                base_etag TEXT,                            -- ... and its ETag
                if_match TEXT,                             -- the precondition to send: base_etag, or the ETag
                                                           -- the server gave the previous write of this path
                idempotency_key TEXT NOT NULL UNIQUE,
                status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'conflict', 'rejected')),
                attempts INTEGER NOT NULL DEFAULT 0,       -- requests started (counted before each is sent)
                last_error TEXT,
                theirs_body TEXT,                          -- conflict: the server's current document (NULL: deleted)
                theirs_etag TEXT,
                problem TEXT,                              -- rejected: the server's problem detail
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE INDEX outbox_by_path ON outbox (path, seq);
            -- Counts kept by triggers, so that `lib status` reads one row per
            -- status however long the outbox is.
            CREATE TABLE outbox_counts (status TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO outbox_counts VALUES ('pending', 0), ('conflict', 0), ('rejected', 0);
            CREATE TRIGGER outbox_counts_insert AFTER INSERT ON outbox BEGIN
                UPDATE outbox_counts SET n = n + 1 WHERE status = NEW.status;
            END;
            CREATE TRIGGER outbox_counts_delete AFTER DELETE ON outbox BEGIN
                UPDATE outbox_counts SET n = n - 1 WHERE status = OLD.status;
            END;
            CREATE TRIGGER outbox_counts_update AFTER UPDATE OF status ON outbox WHEN OLD.status <> NEW.status BEGIN
                UPDATE outbox_counts SET n = n - 1 WHERE status = OLD.status;
                UPDATE outbox_counts SET n = n + 1 WHERE status = NEW.status;
            END;
            CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
            """)
        m.register("003-intents", WholeDocumentWrites.migrate)
        m.register("004-pushed-log", sql: PushedLog.migration)
        m.register(LibraryIndexSchema.name, sql: LibraryIndexSchema.sql)
        m.register(LibraryIndexSchema.triggersDropped, sql: LibraryIndexSchema.dropTriggers)
        // Protocol v2: the protocol a write was first sent with, and whose
        // changes a pushed write was merged with. A write a lib from before
        // v2 may have sent (an attempt, or a claim of a push that died) was
        // sent as v1: its key is recorded with a v1 request.
        m.register("007-protocol-v2", sql: """
            ALTER TABLE outbox ADD COLUMN sent_with TEXT;
            UPDATE outbox SET sent_with = 'v1' WHERE attempts > 0 OR claimed = 1;
            """ + PushedLog.mergedColumn)
        m.register(LibraryIndexSchema.lettersFolded, sql: LibraryIndexSchema.reindexFolded)
        m.register("009-reverts-logged", sql: PushedLog.revertsColumns)
        m.register("010-deletions-seen", sql: SeenDeletions.migration)
        return m
    }
}
