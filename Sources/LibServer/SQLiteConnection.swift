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

/// Rows one connection read, by statement and bound values, valid for one
/// value of SQLite's `PRAGMA data_version` (which moves when another
/// connection commits) until the connection writes itself. Bounded whatever
/// the clients ask for: a result over `resultBytes` is not kept, and past
/// `limit` results or `totalBytes` all are forgotten.
struct RememberedReads {
    static let limit = 256
    static let resultBytes = 64 * 1024
    static let totalBytes = 1024 * 1024

    private struct Query: Hashable {
        let sql: String
        let values: [SQLValue]
    }

    private var results: [Query: [Row]] = [:]
    private var bytes = 0
    private var version: Int64?

    /// Forgets everything unless `version` is the one the results were read at.
    mutating func check(version current: Int64?) {
        guard current == nil || current != version else { return }
        forget()
        version = current
    }

    mutating func forget() {
        if !results.isEmpty { results.removeAll(keepingCapacity: true) }
        bytes = 0
        version = nil
    }

    func rows(_ sql: String, _ values: [SQLValue]) -> [Row]? {
        version == nil ? nil : results[Query(sql: sql, values: values)]
    }

    mutating func keep(_ rows: [Row], _ sql: String, _ values: [SQLValue]) {
        let size = rows.reduce(0) { total, row in total + row.values.reduce(16) { $0 + Self.size(of: $1) } }
        guard let kept = version, size <= Self.resultBytes else { return }
        if results.count >= Self.limit || bytes + size > Self.totalBytes {
            forget()
            version = kept
        }
        results[Query(sql: sql, values: values)] = rows
        bytes += size
    }

    private static func size(of value: SQLValue) -> Int {
        switch value {
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        case .null, .integer, .real: 8
        }
    }
}
