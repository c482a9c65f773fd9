import CSQLite

/// Tells its owner, on one connection, when a transaction starts changing a
/// table and when that transaction has committed or rolled back: the seam
/// for files derived from a table that must never show what is not
/// committed (the prompt file is removed at the first change and written
/// again after the commit).
///
/// `willChange` runs at the first inserted, updated or deleted row of the
/// table (SQLite's update hook: inside the statement, so it must not use
/// the connection). `didCommit` runs after the commit, once the write lock
/// is released, and may read the database (SQLite's WAL hook; the watch
/// keeps SQLite's automatic checkpoint, which uses the same hook). After a
/// rollback `didRollBack` runs inside SQLite and must not use the
/// connection either. Only for WAL databases: without a WAL, commits are
/// never reported.
public final class TableChangeWatch {
    private let database: Database
    private let table: String
    private let willChange: () -> Void
    private let didCommit: (Database) -> Void
    private let didRollBack: () -> Void
    private var changing = false

    public init(database: Database, table: String, willChange: @escaping () -> Void,
                didCommit: @escaping (Database) -> Void, didRollBack: @escaping () -> Void) {
        self.database = database
        self.table = table
        self.willChange = willChange
        self.didCommit = didCommit
        self.didRollBack = didRollBack
        let me = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(database.handle, { context, _, databaseName, tableName, _ in
            guard let context, let databaseName, let tableName else { return }
            let watch = Unmanaged<TableChangeWatch>.fromOpaque(context).takeUnretainedValue()
            guard !watch.changing, String(cString: databaseName) == "main", String(cString: tableName) == watch.table
            else { return }
            watch.changing = true
            watch.willChange()
        }, me)
        sqlite3_wal_hook(database.handle, { context, handle, databaseName, pages in
            guard let context else { return SQLITE_OK }
            let watch = Unmanaged<TableChangeWatch>.fromOpaque(context).takeUnretainedValue()
            if watch.changing, let databaseName, String(cString: databaseName) == "main" {
                watch.changing = false
                watch.didCommit(watch.database)
            }
            // What sqlite3_wal_autocheckpoint(1000) does, which this hook replaces.
            if pages >= 1000 { sqlite3_wal_checkpoint(handle, databaseName) }
            return SQLITE_OK
        }, me)
        sqlite3_rollback_hook(database.handle, { context in
            guard let context else { return }
            let watch = Unmanaged<TableChangeWatch>.fromOpaque(context).takeUnretainedValue()
            guard watch.changing else { return }
            watch.changing = false
            watch.didRollBack()
        }, me)
    }

    deinit {
        sqlite3_update_hook(database.handle, nil, nil)
        sqlite3_rollback_hook(database.handle, nil, nil)
        sqlite3_wal_autocheckpoint(database.handle, 1000)
    }
}
