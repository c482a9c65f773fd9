import LibStore

/// The embedded store: one SQLite connection (WAL, so readers go on while
/// another connection or process writes). Its statements are prepared once
/// and kept, in the connection's statement cache
/// (`Database.withCachedStatement`): preparing costs more than running the
/// small queries the routes make.
final class SQLiteConnection: SQLConnection {
    let database: Database
    var dialect: SQLDialect { .sqlite }

    /// Creates the file when missing (`Database` does so without touching
    /// the locks other connections hold on it).
    init(path: String) throws {
        database = try Database(path: path)
    }

    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
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
        try database.run(cached: sql, values)
        return database.changes
    }

    func runScript(_ sql: String) throws {
        try database.execute(sql)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try database.write { _ in try body() }
    }

    func readTogether<T>(_ body: () throws -> T) throws -> T {
        try database.run(cached: "BEGIN")
        do {
            let value = try body()
            try database.run(cached: "COMMIT")
            return value
        } catch {
            if database.isInTransaction { try? database.run(cached: "ROLLBACK") }
            throw error
        }
    }

    func lock(_ name: String) throws {}
}
