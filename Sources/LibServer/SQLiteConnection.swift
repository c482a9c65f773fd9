import LibStore

/// The embedded store: one SQLite connection (WAL, so readers go on while
/// another connection or process writes). Its statements are prepared once
/// and kept, in the connection's statement cache
/// (`Database.withCachedStatement`): preparing costs more than running the
/// small queries the routes make.
final class SQLiteConnection: SQLConnection {
    let database: Database
    var dialect: SQLDialect { .sqlite }
    /// What `readTogether` read, kept while the database is as it was then.
    private var remembered = RememberedReads()
    private var readingTogether = false

    /// Creates the file when missing (`Database` does so without touching
    /// the locks other connections hold on it).
    init(path: String) throws {
        database = try Database(path: path)
    }

    /// A connection opened by the caller (`lib-server restore`'s, held alone).
    init(database: Database) {
        self.database = database
    }

    /// In `readTogether`, rows read before on this connection while nothing
    /// has been committed since come from memory: a signed-in GET of the
    /// book it served last (the token's session, then the book) reads no table.
    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        guard readingTogether else {
            // It may write (`RETURNING`), and a commit of this connection's
            // own does not move its data_version.
            remembered.forget()
            return try read(sql, values)
        }
        if let rows = remembered.rows(sql, values) { return rows }
        let rows = try read(sql, values)
        remembered.keep(rows, sql, values)
        return rows
    }

    private func read(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        // The cache resets the statement when done, so that a finished read
        // holds no snapshot open.
        try database.withCachedStatement(sql) { statement in
            try statement.bind(values)
            var rows: [Row] = []
            while try statement.step() {
                let names = statement.columnNames
                rows.append(Row(columns: names, values: (0..<names.count).map(statement.value(at:))))
            }
            return rows
        }
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        remembered.forget()
        try database.run(cached: sql, values)
        return database.changes
    }

    func runScript(_ sql: String) throws {
        remembered.forget()
        try database.execute(sql)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        // A commit of this connection's own does not move its data_version.
        defer { remembered.forget() }
        return try database.write { _ in try body() }
    }

    /// One read transaction. Its first statement, `PRAGMA data_version`,
    /// starts the snapshot and says whether any other connection, in this
    /// process or another, has committed since the last one: if so, what
    /// was remembered is forgotten.
    func readTogether<T>(_ body: () throws -> T) throws -> T {
        try database.run(cached: "BEGIN")
        do {
            remembered.check(version: try database.scalar(cached: "PRAGMA data_version")?.integer)
            readingTogether = true
            let value = try body()
            readingTogether = false
            try database.run(cached: "COMMIT")
            return value
        } catch {
            readingTogether = false
            if database.isInTransaction { try? database.run(cached: "ROLLBACK") }
            throw error
        }
    }

    func lock(_ name: String) throws {}
}
