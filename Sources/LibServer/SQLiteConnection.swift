import LibStore

/// The embedded store: one SQLite connection (WAL, so readers go on while
/// another connection or process writes).
final class SQLiteConnection: SQLConnection {
    let database: Database
    var dialect: SQLDialect { .sqlite }

    init(path: String) throws {
        database = try Database(path: path)
    }

    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        try database.query(sql, values)
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try database.run(sql, values)
        return database.changes
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try database.write { _ in try body() }
    }

    func lock(_ name: String) throws {}
}
