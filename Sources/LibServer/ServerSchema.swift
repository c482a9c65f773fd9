/// The server database's migrations, for each store: `ServerMigrator`
/// applies them. Append only: the names are recorded in existing databases.
enum ServerSchema {
    static func migrations(for dialect: SQLDialect) -> [ServerMigration] {
        switch dialect {
        case .sqlite: sqlite
        case .postgresql: postgresql
        }
    }

    /// SQLite's, step by step since the first release.
    static let sqlite: [ServerMigration] = [
        ServerMigration("001-users-and-sessions", sql: """
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
            """),
        ServerMigration("002-books-and-history", sql: """
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
            """),
        ServerMigration("003-idempotency", sql: """
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
            """),
        // A claim: status 0 while the write is in flight, held by `claim`
        // (a random id per attempt); then the outcome. `lease_until` is no
        // longer read: a claim lives as long as its holder (`KeyClaimHolder`).
        ServerMigration("004-idempotency-claims", sql: """
            ALTER TABLE idempotency ADD COLUMN claim TEXT;
            ALTER TABLE idempotency ADD COLUMN lease_until REAL;
            """),
        // The change feed (ChangeLog): one row per book at the position of
        // its latest change; AUTOINCREMENT so that a position is never handed
        // out twice, even after the row holding the highest one was replaced.
        // Books already there enter the feed in id order.
        ServerMigration("005-change-feed", sql: """
            CREATE TABLE changes (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                book_id TEXT NOT NULL UNIQUE,
                deleted INTEGER NOT NULL,
                at REAL NOT NULL
            );
            CREATE INDEX changes_tombstones ON changes (at) WHERE deleted = 1;
            CREATE TABLE change_feed (epoch TEXT NOT NULL, horizon INTEGER NOT NULL);
            INSERT INTO change_feed (epoch, horizon) VALUES (lower(hex(randomblob(6))), 0);
            INSERT INTO changes (book_id, deleted, at)
                SELECT id, document IS NULL, CAST(strftime('%s', 'now') AS REAL) FROM books ORDER BY id;
            """),
        // A session lasts while it is used: its last recorded use
        // (UserDirectory.recordUse); NULL until the first renewal.
        ServerMigration("006-session-use", sql: """
            ALTER TABLE sessions ADD COLUMN used_at REAL;
            """),
        // The device whose write made a book's latest change (the client's
        // `Lib-Device`; NULL: unknown): what a device is behind by does not
        // count its own writes (ChangeLog.behind).
        ServerMigration("007-change-device", sql: """
            ALTER TABLE changes ADD COLUMN device TEXT;
            """),
        // Device sign-in (RFC 8628, DeviceGrants): a code pair waiting to be
        // approved; only the device code's SHA-256 is kept, as for tokens.
        ServerMigration("008-device-grants", sql: """
            CREATE TABLE device_grants (
                device_code_hash TEXT PRIMARY KEY NOT NULL,
                user_code TEXT NOT NULL UNIQUE,
                state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'used')),
                user_id TEXT REFERENCES users(id),
                created_at REAL NOT NULL,
                expires_at REAL NOT NULL,
                poll_interval REAL NOT NULL,
                polled_at REAL
            );
            CREATE INDEX device_grants_by_expiry ON device_grants (expires_at);
            """),
    ]

    /// PostgreSQL's: the tables in the shape the SQLite migrations had
    /// reached when PostgreSQL came. Ids sort bytewise (`COLLATE "C"`), as
    /// they do in SQLite, so pages come in the same order on both stores.
    static let postgresql: [ServerMigration] = [
        ServerMigration("001-library", sql: """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                username TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL CHECK (role IN ('librarian', 'reader')),
                password_hash TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL
            );
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id),
                created_at DOUBLE PRECISION NOT NULL,
                revoked_at DOUBLE PRECISION
            );
            CREATE TABLE books (
                id TEXT COLLATE "C" PRIMARY KEY,
                version BIGINT NOT NULL,
                etag TEXT NOT NULL,
                document TEXT
            );
            CREATE TABLE history (
                book_id TEXT COLLATE "C" NOT NULL,
                version BIGINT NOT NULL,
                etag TEXT NOT NULL,
                updated_by TEXT NOT NULL,
                at TEXT NOT NULL,
                document TEXT,
                PRIMARY KEY (book_id, version)
            );
            CREATE TABLE idempotency (
                user_id TEXT NOT NULL,
                key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status INTEGER NOT NULL,
                etag TEXT,
                body TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                claim TEXT,
                lease_until DOUBLE PRECISION,
                PRIMARY KEY (user_id, key)
            );
            CREATE INDEX idempotency_by_age ON idempotency (created_at);
            """),
        // The change feed: as SQLite's 005-change-feed (see ChangeLog).
        ServerMigration("002-change-feed", sql: """
            CREATE TABLE changes (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                book_id TEXT COLLATE "C" NOT NULL UNIQUE,
                deleted INTEGER NOT NULL,
                at DOUBLE PRECISION NOT NULL
            );
            CREATE INDEX changes_tombstones ON changes (at) WHERE deleted = 1;
            CREATE TABLE change_feed (epoch TEXT NOT NULL, horizon BIGINT NOT NULL);
            INSERT INTO change_feed (epoch, horizon) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 12), 0);
            INSERT INTO changes (book_id, deleted, at)
                SELECT id, CASE WHEN document IS NULL THEN 1 ELSE 0 END, extract(epoch from now()) FROM books ORDER BY id;
            """),
        // As SQLite's 006-session-use.
        ServerMigration("003-session-use", sql: """
            ALTER TABLE sessions ADD COLUMN used_at DOUBLE PRECISION;
            """),
        // As SQLite's 007-change-device.
        ServerMigration("004-change-device", sql: """
            ALTER TABLE changes ADD COLUMN device TEXT;
            """),
        // As SQLite's 008-device-grants.
        ServerMigration("005-device-grants", sql: """
            CREATE TABLE device_grants (
                device_code_hash TEXT PRIMARY KEY,
                user_code TEXT NOT NULL UNIQUE,
                state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'used')),
                user_id TEXT REFERENCES users(id),
                created_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                poll_interval DOUBLE PRECISION NOT NULL,
                polled_at DOUBLE PRECISION
            );
            CREATE INDEX device_grants_by_expiry ON device_grants (expires_at);
            """),
    ]
}
