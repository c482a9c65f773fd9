/// Brings a database's schema up to date: named migrations applied in the
/// order they were registered, each once, each in its own transaction, and
/// recorded in `schema_migrations`. Append new migrations; never edit or
/// reorder applied ones.
public struct Migrator {
    public struct Migration {
        public let name: String
        public let apply: (Database) throws -> Void
    }

    public private(set) var migrations: [Migration] = []

    public init() {}

    public mutating func register(_ name: String, _ apply: @escaping (Database) throws -> Void) {
        migrations.append(Migration(name: name, apply: apply))
    }

    /// `sql` is only made when the migration runs: opening an up-to-date
    /// store (every `lib` command) reads the names alone.
    public mutating func register(_ name: String, sql: @autoclosure @escaping () -> String) {
        register(name) { db in try db.execute(sql()) }
    }

    /// Applies the migrations this database lacks; returns their names.
    /// Fails, changing nothing, when the database has migrations this code
    /// does not know (it was made by a newer version).
    @discardableResult
    public func migrate(_ db: Database) throws -> [String] {
        try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
        let known = Set(migrations.map(\.name))
        let applied = try db.query("SELECT name FROM schema_migrations").compactMap { $0[0].text }
        if let unknown = applied.first(where: { !known.contains($0) }) {
            throw MigrationError.unknownMigration(name: unknown, path: db.path)
        }
        let appliedSet = Set(applied)
        var ran: [String] = []
        for migration in migrations where !appliedSet.contains(migration.name) {
            // Checked again inside the transaction: another process may have
            // applied it since the list above was read.
            let didRun = try db.write { db -> Bool in
                let exists = try db.scalar("SELECT 1 FROM schema_migrations WHERE name = ?1", [.text(migration.name)]) != nil
                if exists { return false }
                try migration.apply(db)
                try db.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?1, julianday('now'))", [.text(migration.name)])
                return true
            }
            if didRun { ran.append(migration.name) }
        }
        return ran
    }
}

public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownMigration(name: String, path: String)

    public var description: String {
        switch self {
        case .unknownMigration(let name, let path):
            return "The database \(path) was made by a newer version (it has migration '\(name)'); upgrade lib to use it"
        }
    }
}
