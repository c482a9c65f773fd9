import Foundation
import LibStore

/// `lib-server restore`: puts an SQLite backup into place (`--from`), and
/// in every case starts a new change-feed epoch. Cursors name their epoch
/// (`ChangeLog.State`), so after it every device's cursor is answered 410:
/// each lists the books again, as they are now, and sends its pending
/// writes against those versions (a clash on a field becomes a conflict for
/// `lib resolve`). Without it, a cursor from after the backup would point
/// at positions the restored database hands out again for other changes.
enum ServerRestore {
    /// What a restore did, for its closing line.
    struct Report {
        let epoch: String
        let books: Int
    }

    static func run(_ options: RestoreOptions) throws -> Report {
        if PostgresLocation.isPostgres(options.database) {
            guard options.source == nil else {
                throw ServerUsageError("""
                    --from copies an SQLite backup; restore PostgreSQL with pg_restore or from pg_basebackup \
                    (DEPLOY.md in /usr/share/doc/lib-server, "Backup and restore"), then run 'lib-server restore --db URI' without --from
                    """)
            }
            return try newEpochOnPostgres(options.database)
        }
        guard let source = options.source else { return try newEpochOnSQLite(options.database) }
        return try restoreSQLite(options.database, from: source)
    }

    /// Copies `source` into `path` in one transaction, holding `path` alone
    /// throughout, then moves the epoch on.
    private static func restoreSQLite(_ path: String, from source: String) throws -> Report {
        let backup = try ServerBackup.openExisting(source, role: "--from", readOnly: true)
        let problems = try backup.query("PRAGMA quick_check").compactMap { $0[0].text }
        guard problems == ["ok"] else {
            throw ServerCommandFailure("--from \(source) is damaged: \(problems.prefix(3).joined(separator: "; ")); nothing was changed")
        }
        let database = try openAlone(path)
        _ = try backup.copy(into: database, pagesPerStep: -1)
        let report = try startNewEpoch(on: SQLiteConnection(database: database), location: path)
        // Leave the file whole, its WAL empty, for the server that opens it next.
        _ = try database.query("PRAGMA wal_checkpoint(TRUNCATE)")
        return report
    }

    /// `path` (created when missing) for this process alone: busy while
    /// any other connection, in any process, has it open.
    private static func openAlone(_ path: String) throws -> Database {
        var options = DatabaseOptions.alone()
        options.busyTimeoutMilliseconds = 500
        do throws(DatabaseError) {
            let database = try Database(path: path, options: options)
            // The first write lock, which exclusive locking mode keeps until the connection closes.
            try database.execute("BEGIN EXCLUSIVE")
            try database.execute("COMMIT")
            return database
        } catch {
            if error.isBusy {
                throw ServerCommandFailure("""
                    \(path) is in use: stop lib-server (and anything else that has it open) before restoring; nothing was changed
                    """)
            }
            throw ServerCommandFailure("--db \(path) cannot be opened: \(error.message); nothing was changed")
        }
    }

    /// After a restore by other means, or to be sure: a new epoch on the
    /// database as it is. Servers may be running: they read the epoch at
    /// each feed request.
    private static func newEpochOnSQLite(_ path: String) throws -> Report {
        let existing = try ServerBackup.openExisting(path, role: "--db")
        return try startNewEpoch(on: SQLiteConnection(database: existing), location: path)
    }

    private static func newEpochOnPostgres(_ location: String) throws -> Report {
        let shown = PostgresLocation.redacted(location)
        let connection = try PostgresConnection(uri: location)
        if try connection.isStandby() {
            throw ServerCommandFailure("\(shown) is a standby (read-only, in recovery): start the new epoch on the primary")
        }
        return try startNewEpoch(on: connection, location: shown)
    }

    /// Brings the schema up to date (a backup from an older lib-server),
    /// then moves the epoch on.
    private static func startNewEpoch(on db: any SQLConnection, location: String) throws -> Report {
        try ServerMigrator(for: db.dialect).migrate(db, location: location)
        return try db.transaction {
            let epoch = try ChangeLog.startNewEpoch(in: db)
            let books = try db.scalar("SELECT count(*) FROM books WHERE document IS NOT NULL", [])?.integer ?? 0
            return Report(epoch: epoch, books: Int(books))
        }
    }
}
