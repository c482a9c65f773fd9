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

    /// Statements outside a transaction: each one sees the latest commit
    /// (in `readTogether`, the snapshot its first read took).
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        if let held = Self.heldForReads, held.store == ObjectIdentifier(self) { return try body(held.connection) }
        return try withConnection(body)
    }

    /// Runs `body`, which only reads, with one connection for all its
    /// `read`s, which then share one read transaction (`readTogether`): a
    /// request that checks its token and then reads a book takes a
    /// connection from the pool once, and SQLite's read locks once. `body`
    /// must not write: a write would take a second connection while this
    /// one is held.
    func readTogether<T>(_ body: () throws -> T) throws -> T {
        if let held = Self.heldForReads, held.store == ObjectIdentifier(self) { return try body() }
        return try withConnection { connection in
            try Self.$heldForReads.withValue(Held(store: ObjectIdentifier(self), connection: connection)) {
                try connection.readTogether(body)
            }
        }
    }

    /// The connection `readTogether` lends to the reads of the thread it runs on.
    @TaskLocal private static var heldForReads: Held?

    /// `@unchecked`: only the thread that runs `readTogether` sees it.
    private struct Held: @unchecked Sendable {
        let store: ObjectIdentifier
        let connection: any SQLConnection
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
