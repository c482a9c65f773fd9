import Foundation
import Synchronization

/// The server's database as a small pool of connections, one per request
/// being served at a time: reads on SQLite go on in parallel (WAL), and
/// PostgreSQL gets real concurrency.
public final class ServerStore: Sendable {
    private let idle: Mutex<[Lent]>
    private let available: DispatchSemaphore
    let dialect: SQLDialect
    /// Posted after each write commits, while change-feed requests wait.
    let changeNotices = ChangeNotices()

    /// `first` is the connection that created and migrated the database;
    /// `others` join it in the pool.
    init(first: any SQLConnection, others: [any SQLConnection]) {
        idle = Mutex(([first] + others).map(Lent.init))
        available = DispatchSemaphore(value: 1 + others.count)
        dialect = first.dialect
    }

    /// Lends a connection to `body`, waiting for one to be free.
    func withConnection<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        available.wait()
        let lent = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(lent) }
            available.signal()
        }
        return try body(lent.connection)
    }

    /// Statements outside a transaction: each one sees the latest commit.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// One write transaction.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let result = try withConnection { connection in try connection.transaction { try body(connection) } }
        changeNotices.postIfWatched()
        return result
    }

    /// A connection as the pool keeps it. `@unchecked`: a connection is
    /// used by one thread at a time, the one that took it out of `idle`
    /// (until it puts it back).
    private struct Lent: @unchecked Sendable {
        let connection: any SQLConnection
    }
}
