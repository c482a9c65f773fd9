import LibStore

/// One step of the server's schema: a name recorded in `schema_migrations`
/// once applied, and the statements that make it.
struct ServerMigration: Sendable {
    let name: String
    let sql: String

    init(_ name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// lib-server's one migration runner, for both stores: brings a database
/// up to date with its dialect's migrations (`ServerSchema`), in order,
/// each once, each in its own transaction, recorded by name in
/// `schema_migrations`. Every step takes the schema lock first and reads
/// what is applied under it, so servers starting together on a new
/// database do not race (SQLite's `BEGIN IMMEDIATE` already serializes
/// them; PostgreSQL takes an advisory lock). Append new migrations; never
/// rename, edit or reorder applied ones: their names are in existing
/// databases.
struct ServerMigrator {
    let migrations: [ServerMigration]

    /// The dialect's migrations.
    init(for dialect: SQLDialect) {
        migrations = ServerSchema.migrations(for: dialect)
    }

    init(migrations: [ServerMigration]) {
        self.migrations = migrations
    }

    /// Applies what `db` lacks; returns the names applied. Fails, changing
    /// nothing, when the database has a migration this code does not know
    /// (a newer lib-server made it). `location` names the database in that
    /// error (without a password).
    @discardableResult
    func migrate(_ db: any SQLConnection, location: String) throws -> [String] {
        var applied: [String] = []
        while let name = try db.transaction({ try applyNext(db, location: location) }) {
            applied.append(name)
        }
        return applied
    }

    /// In a transaction: the next migration the database lacks, applied and
    /// recorded; nil when there is none.
    private func applyNext(_ db: any SQLConnection, location: String) throws -> String? {
        try db.lock("lib-server schema")
        let (table, now) = switch db.dialect {
        case .sqlite: ("applied_at REAL NOT NULL", "julianday('now')")
        case .postgresql: ("applied_at DOUBLE PRECISION NOT NULL", "extract(epoch from now())")
        }
        try db.runScript("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY NOT NULL, \(table))")
        let done = Set(try db.query("SELECT name FROM schema_migrations").compactMap { $0[0].text })
        let known = Set(migrations.map(\.name))
        if let unknown = done.sorted().first(where: { !known.contains($0) }) {
            throw ServerMigrationError(location: location, unknownMigration: unknown)
        }
        guard let next = migrations.first(where: { !done.contains($0.name) }) else { return nil }
        try db.runScript(next.sql)
        try db.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?1, \(now))", [.text(next.name)])
        return next.name
    }
}

/// The database was made by a newer lib-server: this one does not know all
/// of its schema, and must not touch it.
struct ServerMigrationError: Error, CustomStringConvertible {
    let location: String
    let unknownMigration: String

    var description: String {
        "The database \(location) was made by a newer lib-server (it has migration '\(unknownMigration)'); upgrade lib-server to use it"
    }
}
