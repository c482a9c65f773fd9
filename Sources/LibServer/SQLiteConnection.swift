import LibStore

/// The embedded store: one SQLite connection (WAL, so readers go on while
/// another connection or process writes).
final class SQLiteConnection: SQLConnection {
    let database: Database
    var dialect: SQLDialect { .sqlite }

    /// Only the first connection may create the file: creating opens and
    /// closes a descriptor of its own, and closing any descriptor of a file
    /// drops every POSIX lock this process holds on it, the other
    /// connections' WAL locks included (fcntl(2)); another process would
    /// then think it the last user and delete the WAL under us.
    init(path: String, create: Bool) throws {
        var options = DatabaseOptions()
        options.create = create
        database = try Database(path: path, options: options)
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
