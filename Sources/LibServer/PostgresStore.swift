/// `--db postgresql://USER@HOST:PORT/DB`: a libpq connection URI.
enum PostgresLocation {
    static func isURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The URI without a password, for messages.
    static func redacted(_ uri: String) -> String {
        guard let scheme = uri.range(of: "://"), let at = uri[scheme.upperBound...].firstIndex(of: "@") else { return uri }
        let credentials = uri[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return uri }
        return String(uri[..<colon]) + ":***" + String(uri[at...])
    }
}

/// The scale-out store: the same tables on PostgreSQL, shared by every
/// server pointed at the database.
enum PostgresStore {
    static func open(_ uri: String) throws -> ServerStore {
        let first = try PostgresConnection(uri: uri)
        try PostgresSchema.migrate(first)
        var others: [any SQLConnection] = []
        for _ in 1..<ServerDatabase.poolSize { others.append(try PostgresConnection(uri: uri)) }
        return ServerStore(first: first, others: others)
    }
}

/// The server's tables on PostgreSQL, in their current shape (the SQLite
/// migrations reached it step by step). Ids sort bytewise (`COLLATE "C"`),
/// as they do in SQLite, so pages come in the same order on both stores.
enum PostgresSchema {
    static let migrations: [(name: String, sql: String)] = [
        ("001-library", """
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
    ]

    /// Applies what is missing, under a lock, so that servers starting
    /// together on a new database do not race.
    static func migrate(_ db: PostgresConnection) throws {
        try db.transaction {
            try db.lock("lib-server schema")
            try db.runScript("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
            let applied = Set(try db.query("SELECT name FROM schema_migrations", []).compactMap { $0[0].text })
            let known = Set(migrations.map(\.name))
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw PostgresError(message: "the database was made by a newer lib-server (it has migration '\(unknown)')")
            }
            for migration in migrations where !applied.contains(migration.name) {
                try db.runScript(migration.sql)
                try db.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?1, extract(epoch from now()))",
                           [.text(migration.name)])
            }
        }
    }
}
