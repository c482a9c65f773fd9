import LibStore

/// The embedded store: one SQLite connection (WAL, so readers go on while
/// another connection or process writes), its statements prepared once and
/// kept: preparing costs more than running the small queries the routes make.
final class SQLiteConnection: SQLConnection {
    let database: Database
    private var statements: [String: Statement] = [:]
    var dialect: SQLDialect { .sqlite }

    /// Creates the file when missing (`Database` does so without touching
    /// the locks other connections hold on it).
    init(path: String) throws {
        database = try Database(path: path)
    }

    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        let statement = try prepared(sql)
        // Reset when done, so that a finished read holds no snapshot open.
        defer { statement.reset() }
        try statement.bind(values)
        var columns: [String]?
        var rows: [Row] = []
        while try statement.step() {
            let names = columns ?? (0..<statement.columnCount).map(statement.columnName)
            columns = names
            rows.append(Row(columns: names, values: (0..<names.count).map(statement.value(at:))))
        }
        return rows
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
        return database.changes
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try database.write { _ in try body() }
    }

    func lock(_ name: String) throws {}

    private func prepared(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return statement
    }
}
