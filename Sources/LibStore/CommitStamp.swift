import CSQLite

/// What a WAL database looked like after its last commit, read from its WAL
/// index's header without a lock, a statement or a system call: two equal
/// stamps mean no connection, in this process or another, committed in
/// between. Read-only answers can be kept while the stamp stays the same.
public struct CommitStamp: Equatable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    fileprivate init(_ words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    public static func == (a: CommitStamp, b: CommitStamp) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
            && a.words.3 == b.words.3 && a.words.4 == b.words.4 && a.words.5 == b.words.5
    }
}

/// Reads a database's `CommitStamp` from any thread. Holds its connection,
/// whose shared memory the stamp is read from, open.
public final class CommitWatch: @unchecked Sendable {
    // @unchecked: the connection is only kept, never used, once made; the
    // index is shared memory that SQLite writes under its own protocol.
    private let database: Database
    private let index: UnsafePointer<UInt8>

    /// nil when the database has no shared WAL index to read (not in WAL
    /// mode, or this connection keeps it in its own memory: exclusive locking).
    public init?(_ database: Database) {
        guard (try? database.scalar("PRAGMA journal_mode"))??.text?.lowercased() == "wal",
              (try? database.scalar("PRAGMA locking_mode"))??.text?.lowercased() == "normal",
              let index = csqlite_wal_index(database.handle) else { return nil }
        self.database = database
        self.index = index
        guard stamp != nil else { return nil }
    }

    /// nil while a commit is rewriting the header.
    public var stamp: CommitStamp? {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let consistent = withUnsafeMutableBytes(of: &words) { header in
            csqlite_wal_index_header(index, header.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
        return consistent == 1 ? CommitStamp(words) : nil
    }
}
