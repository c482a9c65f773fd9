import Foundation
import LibStore
import Synchronization

/// The server's database as a small pool of connections, one per request
/// being served at a time: reads on SQLite go on in parallel (WAL), and
/// PostgreSQL gets real concurrency. No lock is shared by every request: a
/// request claims a free connection with one atomic exchange on the pool's
/// bit set (the lowest free one, so the same few connections, and what
/// they remember, stay warm), and waits only when every connection is busy.
public final class ServerStore: Sendable {
    private let connections: [Lent]
    /// Bit `i` set: `connections[i]` is lent.
    private let lent = Atomic<UInt64>(0)
    /// As many as there are connections not lent.
    private let available: DispatchSemaphore
    let dialect: SQLDialect
    /// Posted after each write commits, while change-feed requests wait.
    let changeNotices = ChangeNotices()

    /// Says whether anything was committed since an answer was read (SQLite
    /// in WAL mode); nil: answers cannot be kept.
    let commitWatch: CommitWatch?

    /// `first` is the connection that created and migrated the database;
    /// `others` join it in the pool (63 at most).
    init(first: any SQLConnection, others: [any SQLConnection], commitWatch: CommitWatch? = nil) {
        connections = ([first] + others.prefix(63)).map(Lent.init)
        available = DispatchSemaphore(value: connections.count)
        dialect = first.dialect
        self.commitWatch = commitWatch
    }

    /// How many connections the pool holds, and how many are lent now (`GET /metrics`).
    var poolSize: Int { connections.count }
    var connectionsInUse: Int { lent.load(ordering: .relaxed).nonzeroBitCount }

    /// Lends a connection to `body`, waiting for one to be free.
    func withConnection<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        available.wait()
        return try lendAdmitted(body)
    }

    /// Lends a connection to `body` only if one is free now; nil if none is
    /// (an event loop must not wait for one).
    func withFreeConnection<T>(_ body: (any SQLConnection) throws -> T) throws -> T? {
        guard available.wait(timeout: .now()) == .success else { return nil }
        return try lendAdmitted(body)
    }

    /// Lends a connection to `body` once the semaphore has let this thread in.
    private func lendAdmitted<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        let index = claimFreeConnection()
        defer {
            lent.bitwiseAnd(~(UInt64(1) << index), ordering: .releasing)
            available.signal()
        }
        return try body(connections[index].connection)
    }

    /// The semaphore let this thread in, so a bit is clear for it.
    private func claimFreeConnection() -> Int {
        var seen = lent.load(ordering: .relaxed)
        while true {
            let index = (~seen).trailingZeroBitCount
            let (claimed, now) = lent.compareExchange(expected: seen, desired: seen | (UInt64(1) << index), ordering: .acquiring)
            if claimed { return index }
            seen = now
        }
    }

    /// Statements outside a transaction: each one sees the latest commit.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection(body)
    }

    /// Runs `body`, which only reads, on one connection whose reads share
    /// one read transaction (`SQLConnection.readTogether`): a request that
    /// checks its token and then reads a book takes a connection from the
    /// pool once, and SQLite's read locks once. The connection is `body`'s
    /// to pass on to whatever reads for it; `body` must not write (a write
    /// would take a second connection while this one is held).
    func readTogether<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.readTogether { try body(connection) }
        }
    }

    /// `readTogether` on a connection free now; nil if none is.
    func readTogetherIfFree<T>(_ body: (any SQLConnection) throws -> T) throws -> T? {
        try withFreeConnection { connection in
            try connection.readTogether { try body(connection) }
        }
    }

    /// One write transaction.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in try write(on: connection) { try body(connection) } }
    }

    /// One write transaction on a connection the caller holds already (a
    /// v1 write holds its key's claim on it, from the claim to the answer).
    func write<T>(on connection: any SQLConnection, _ body: () throws -> T) throws -> T {
        let result = try connection.transaction(body)
        changeNotices.postIfWatched()
        return result
    }

    /// A connection as the pool keeps it. `@unchecked`: a connection is
    /// used by one thread at a time, the one whose claim set its bit (until
    /// it clears it).
    private struct Lent: @unchecked Sendable {
        let connection: any SQLConnection
    }
}
