import LibStore

/// The server database's migrations. Append only.
enum ServerSchema {
    static var migrator: Migrator {
        var m = Migrator()
        m.register("001-users-and-sessions", sql: """
            CREATE TABLE users (
                id TEXT PRIMARY KEY NOT NULL,
                username TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL CHECK (role IN ('librarian', 'reader')),
                password_hash TEXT NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id),
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            """)
        m.register("002-books-and-history", sql: """
            CREATE TABLE books (
                id TEXT PRIMARY KEY NOT NULL,
                version INTEGER NOT NULL,
                etag TEXT NOT NULL,
                document TEXT            -- NULL once deleted; the row keeps the version counting
            );
            CREATE TABLE history (
                book_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                etag TEXT NOT NULL,
                updated_by TEXT NOT NULL,
                at TEXT NOT NULL,
                document TEXT,           -- NULL for a deletion
                PRIMARY KEY (book_id, version)
            );
            """)
        m.register("003-idempotency", sql: """
            CREATE TABLE idempotency (
                user_id TEXT NOT NULL,
                key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status INTEGER NOT NULL,
                etag TEXT,
                body BLOB NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (user_id, key)
            );
            CREATE INDEX idempotency_by_age ON idempotency (created_at);
            """)
        // A claim: status 0 while the write is in flight, held by `claim`
        // (a random id per attempt) until `lease_until`; then the outcome.
        m.register("004-idempotency-claims", sql: """
            ALTER TABLE idempotency ADD COLUMN claim TEXT;
            ALTER TABLE idempotency ADD COLUMN lease_until REAL;
            """)
        return m
    }
}
