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
    /// Runs a statement of a write transaction whose answer is wanted later,
    /// or not at all. PostgreSQL queues it and sends it with the
    /// transaction's next round trip (the next `query` or `run`, `flush`,
    /// or the COMMIT) in libpq's pipeline mode: statements that do not wait
    /// for each other's answers cost one round trip together, not one each.
    /// An error in it fails the round trip it goes with, and so the
    /// transaction. SQLite runs it at once.
    @discardableResult
    func send(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer
    /// Sends what `send` queued and waits for the answers.
    func flush() throws
}

extension SQLValue {
    /// A PostgreSQL array literal of texts, each quoted: bound as one
    /// parameter (`?1::text[]`), so that one statement takes a whole batch.
    static func postgresArray(_ texts: [String]) -> SQLValue {
        .text("{" + texts.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}")
    }
}

/// The rows a statement answered, or will answer once its round trip is
/// made (`SQLConnection.send`): asking for them makes it.
final class SQLAnswer {
    private var answered: [Row]?
    private let roundTrip: () throws -> Void

    init(rows: [Row]) {
        answered = rows
        roundTrip = {}
    }

    /// An answer that comes with the round trip `roundTrip` makes.
    init(awaiting roundTrip: @escaping () throws -> Void) {
        self.roundTrip = roundTrip
    }

    func arrived(_ rows: [Row]) { answered = rows }

    func rows() throws -> [Row] {
        if let answered { return answered }
        try roundTrip()
        guard let answered else { throw SQLAnswerMissing() }
        return answered
    }
}

/// A statement's answer asked for after its transaction failed.
struct SQLAnswerMissing: Error, CustomStringConvertible {
    var description: String { "a statement's answer was asked for after its transaction failed" }
}

extension SQLConnection {
    func query(_ sql: String) throws -> [Row] { try query(sql, []) }

    @discardableResult
    func send(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
        SQLAnswer(rows: try query(sql, values))
    }

    func flush() throws {}

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        try query(sql, values).first?[0]
    }

    /// ` FOR UPDATE` where the database has it: a row read to be changed
    /// stays locked until the transaction ends.
    var forUpdate: String { dialect == .postgresql ? " FOR UPDATE" : "" }
}
