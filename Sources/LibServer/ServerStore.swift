import Foundation

/// The server's database as a small pool of connections, one per request
/// being served at a time: reads on SQLite go on in parallel (WAL), and
/// PostgreSQL gets real concurrency.
public final class ServerStore: @unchecked Sendable {
    // @unchecked: `idle` is only touched under `lock`, and a connection is
    // used by one thread at a time (the one that took it out of `idle`).
    private let lock = NSLock()
    private var idle: [any SQLConnection]
    private let available: DispatchSemaphore
    let dialect: SQLDialect

    /// `first` is the connection that created and migrated the database;
    /// `others` join it in the pool.
    init(first: any SQLConnection, others: [any SQLConnection]) {
        idle = [first] + others
        available = DispatchSemaphore(value: idle.count)
        dialect = first.dialect
    }

    /// Lends a connection to `body`, waiting for one to be free.
    func withConnection<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        available.wait()
        lock.lock()
        let connection = idle.removeLast()
        lock.unlock()
        defer {
            lock.lock()
            idle.append(connection)
            lock.unlock()
            available.signal()
        }
        return try body(connection)
    }

    /// Statements outside a transaction: each one sees the latest commit.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// One write transaction.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in try connection.transaction { try body(connection) } }
    }
}
