import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a database file is opened.
public struct DatabaseOptions: Sendable {
    public var readOnly = false
    /// Create the file (mode 0600, whatever the umask) when it is missing.
    public var create = true
    /// How long a statement waits for another connection's lock, in milliseconds.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// WAL lets readers go on while a writer commits; FULL makes every commit durable.
    public var walJournal = true
    /// This connection alone has the file (`DatabaseOptions.alone()`).
    public var exclusive = false
    public init() {}
}

/// One SQLite connection. Owns its handle and closes it when released; a
/// failed open still closes the handle. Not shareable between threads: give
/// each thread its own, or guard one with a lock.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var cachedStatements: [String: Statement] = [:]
    /// The SQL functions of this connection's own (TextFunction), by name.
    var textFunctions: Set<String> = []

    public init(path: String, options: DatabaseOptions = DatabaseOptions()) throws(DatabaseError) {
        self.path = path
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        _ = Self.configured
        let rc = try Self.creating.withLock { _ throws(DatabaseError) -> Int32 in
            if options.create && !options.readOnly {
                try Self.createPrivateFile(path)
            }
            return sqlite3_open_v2(path, &db, flags, nil)
        }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            sqlite3_close_v2(db)
            throw DatabaseError(extendedCode: code, message: message, path: path)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, options.busyTimeoutMilliseconds)
        if options.exclusive { try execute("PRAGMA locking_mode=EXCLUSIVE") }
        // A file that is not a database, or whose header or schema is damaged,
        // fails here at open rather than at the first query.
        try execute("SELECT count(*) FROM sqlite_schema")
        if !options.readOnly {
            if options.walJournal {
                try switchToWAL(waitingUpTo: options.busyTimeoutMilliseconds)
                // Keep the -wal and -shm files when the last connection
                // closes: a read-only reader (`lib status`) then opens them
                // as they are instead of rebuilding the WAL index each time.
                var persist: Int32 = 1
                sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
                // And do not checkpoint at close: a commit is durable once
                // its WAL frames are synced, and a checkpoint at every close
                // cost each `lib edit` three more syncs (the WAL, the
                // database, the WAL's new header). The WAL is checkpointed as
                // it grows instead (TableChangeWatch, at 1,000 pages).
                csqlite_no_checkpoint_on_close(db)
            }
            try execute("PRAGMA synchronous=FULL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite's process-wide settings, made once before its first connection.
    private static let configured: Void = { _ = csqlite_disable_memory_statistics() }()

    /// Held while a file is created and opened (see `createPrivateFile`).
    private static let creating = Mutex(())

    /// Makes the file with mode 0600 before SQLite opens it; SQLite then gives
    /// its -wal and -shm files the same mode. An existing file is not
    /// touched: closing any descriptor of a file drops every POSIX lock this
    /// process holds on it (fcntl(2)), other connections' included, and
    /// another process would then take itself for the last user and delete
    /// the WAL under them. A new file is made under `creating`, which every
    /// open in this process takes, so no connection can hold a lock on it yet.
    private static func createPrivateFile(_ path: String) throws(DatabaseError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            let reason = String(cString: strerror(errno))
            throw DatabaseError(extendedCode: SQLITE_CANTOPEN, message: reason, path: path)
        }
        fchmod(fd, 0o600)
        close(fd)
    }

    func error(_ rc: Int32, sql: String?) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
        return DatabaseError(extendedCode: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }

    /// `PRAGMA journal_mode=WAL`, waiting while another connection holds the
    /// file: turning a new database to WAL needs an exclusive lock, and
    /// SQLite answers SQLITE_BUSY at once instead of calling the busy
    /// handler (two lib-servers starting together on a new file met it),
    /// or leaves the mode as it was and names that one. A database already
    /// in WAL mode answers at once.
    private func switchToWAL(waitingUpTo milliseconds: Int32) throws(DatabaseError) {
        var waited: Int32 = 0
        while true {
            do throws(DatabaseError) {
                let mode = try scalar("PRAGMA journal_mode=WAL")?.text?.lowercased()
                if mode == "wal" { return }
                guard waited < milliseconds else {
                    throw DatabaseError(extendedCode: SQLITE_BUSY, message: "the database stayed in \(mode ?? "an unknown") journal mode, not WAL",
                                        sql: "PRAGMA journal_mode=WAL", path: path)
                }
            } catch let error where error.isBusy && waited < milliseconds {
                // Another connection holds the file: wait, then ask again.
            }
            usleep(5_000)
            waited += 5
        }
    }

    /// Runs one or more statements that bind nothing and return nothing.
    public func execute(_ sql: String) throws(DatabaseError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
    }

    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs one statement with bindings, ignoring any rows.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws(DatabaseError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs one statement and returns all of its rows.
    public func query(_ sql: String, _ values: [SQLValue] = []) throws(DatabaseError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        let columns = (0..<statement.columnCount).map(statement.columnName)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(columns: columns, values: (0..<columns.count).map(statement.value(at:))))
        }
        return rows
    }

    /// The first column of the first row, or nil when there is no row.
    public func scalar(_ sql: String, _ values: [SQLValue] = []) throws(DatabaseError) -> SQLValue? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Runs `body` with a statement for `sql` prepared once per connection
    /// and kept, reset (so holding no read snapshot) when `body` returns. For
    /// the statements a push runs for every write: compiling them each time
    /// was half of the instructions lib spent per write. A statement already
    /// in use further up the stack is not shared: a fresh one is prepared.
    public func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        if let cached = cachedStatements[sql] {
            if cached.isLent { return try body(try prepare(sql)) }
            statement = cached
        } else {
            statement = try prepare(sql)
            cachedStatements[sql] = statement
        }
        statement.isLent = true
        defer {
            statement.reset()
            statement.isLent = false
        }
        return try body(statement)
    }

    /// `run` with a cached statement.
    public func run(cached sql: String, _ values: [SQLValue] = []) throws {
        try withCachedStatement(sql) { statement in
            try statement.bind(values)
            while try statement.step() {}
        }
    }

    /// `scalar` with a cached statement.
    public func scalar(cached sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        try withCachedStatement(sql) { statement in
            try statement.bind(values)
            return try statement.step() ? statement.value(at: 0) : nil
        }
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` as part of the caller's transaction when there is one
    /// (it commits or rolls back with it), else in a write transaction of
    /// its own (`BEGIN IMMEDIATE`, so a read-then-write never fails half-way
    /// on a lock), committing when it returns and rolling back when it
    /// throws. Not in a savepoint: FTS5 writes its pending index to disk at
    /// every savepoint, 100 k instructions for each write a push records.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        isInTransaction ? try body(self) : try transaction("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction: one consistent snapshot.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", body)
    }

    private func transaction<T>(_ begin: String, _ body: (Database) throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// `PRAGMA integrity_check`: "ok", or the first problems SQLite found.
    public func integrityCheck() throws(DatabaseError) -> [String] {
        try query("PRAGMA integrity_check").compactMap { $0[0].text }
    }
}
