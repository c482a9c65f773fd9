import CSQLite
#if canImport(Glibc)
import Glibc
#endif

extension DatabaseOptions {
    /// For `lib-server restore`: this connection alone may have the file
    /// open. Set before SQLite first touches the file (SQLite's exclusive
    /// locking mode, without the WAL's shared memory), so the first write
    /// fails busy while any other connection, in any process, has it open,
    /// and no other can read or write it until this one closes.
    public static func alone() -> DatabaseOptions {
        var options = DatabaseOptions()
        options.exclusive = true
        return options
    }
}

extension Database {
    /// What `copy(into:)` copied.
    public struct CopyReport: Sendable {
        /// The database's pages, and the bytes they hold.
        public let pages: Int
        public let bytes: Int
        /// How many `sqlite3_backup_step` calls it took.
        public let steps: Int
    }

    /// Copies this whole database into `destination` with SQLite's online
    /// backup API, `pagesPerStep` pages a step, replacing what the
    /// destination held. The copy is one snapshot: the pages are read in
    /// one read transaction of this connection, so writers of other
    /// connections go on (in WAL mode a reader never blocks a writer) and
    /// the copy never restarts for them; only the WAL cannot be
    /// checkpointed past the snapshot until the copy ends. Each step writes
    /// the destination; the copy commits there at the last step, at once.
    public func copy(into destination: Database, pagesPerStep: Int32 = 1024) throws(DatabaseError) -> CopyReport {
        let snapshot = !isInTransaction
        if snapshot {
            try execute("BEGIN DEFERRED")
            // The snapshot starts at the first read, not at BEGIN.
            try execute("SELECT count(*) FROM sqlite_schema")
        }
        defer { if snapshot, isInTransaction { try? execute("COMMIT") } }
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), sql: nil)
        }
        var steps = 0
        // A budget on retries of a busy destination, not on the copy's size.
        var busyRetries = 0
        var rc: Int32 = SQLITE_OK
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            steps += 1
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                busyRetries += 1
                if busyRetries > 500 { break }
                usleep(10_000)
            }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw destination.error(rc == SQLITE_DONE ? finished : rc, sql: nil)
        }
        let pageSize = try destination.scalar("PRAGMA page_size")?.integer ?? 0
        return CopyReport(pages: pages, bytes: pages * Int(pageSize), steps: steps)
    }
}
