import LibStore

/// Which SQL a connection speaks, where the two stores differ.
enum SQLDialect: Sendable {
    case sqlite
    case postgresql
}

/// One connection to the server's database, SQLite or PostgreSQL, as the
/// stores see it. SQL is written once, with `?1`, `?2` … placeholders and
/// the syntax both databases share (`ON CONFLICT`, `RETURNING`).
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row]
    /// Runs one statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int
    /// Runs statements that bind nothing and return nothing, several at
    /// once (a migration's DDL).
    func runScript(_ sql: String) throws
    /// Runs `body` in a write transaction, committing when it returns and
    /// rolling back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Runs `body`, which only reads, so that its reads are one: in one read
    /// transaction on SQLite (one snapshot; the database's read locks are
    /// taken once, not once per statement). PostgreSQL runs them as they
    /// are: a transaction would cost two more round trips there.
    func readTogether<T>(_ body: () throws -> T) throws -> T
    /// Serializes the rest of the transaction with every other transaction
    /// (in any process) that takes the same lock. SQLite's `BEGIN IMMEDIATE`
    /// already serializes all writers, so only PostgreSQL needs to do anything.
    func lock(_ name: String) throws
}

extension SQLConnection {
    func query(_ sql: String) throws -> [Row] { try query(sql, []) }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        try query(sql, values).first?[0]
    }

    /// ` FOR UPDATE` where the database has it: a row read to be changed
    /// stays locked until the transaction ends.
    var forUpdate: String { dialect == .postgresql ? " FOR UPDATE" : "" }
}
