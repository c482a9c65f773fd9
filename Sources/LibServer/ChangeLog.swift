import Foundation
import LibJSON
import LibStore

/// The change feed's log (`GET /v1/changes`): one row per book, holding the
/// position (`seq`) of its latest change, so the feed answers each book once
/// with its current state, and the log never outgrows the library. A
/// deletion's row (a tombstone) is kept `retention` seconds; past that it is
/// pruned and the horizon moves past it, and a cursor from before the
/// horizon is too old (410: list again).
///
/// Why a cursor never passes a change still being committed: the position
/// is taken under one lock that every writer holds from just before its
/// change rows are inserted until it commits (`ChangeLog.lockName`; on
/// PostgreSQL an advisory transaction lock, shared by every instance on the
/// database; on SQLite `BEGIN IMMEDIATE` already serializes all writers).
/// So positions are handed out in commit order: when a reader sees position
/// N committed, every position below N was committed before N was even
/// taken. A sequence taken without that lock can commit out of order (T1
/// takes 10, T2 takes 11 and commits, a reader moves its cursor to 11, T1
/// commits 10: skipped). The lock makes writers wait for each other's
/// commit, so a write takes it as late as it can: its change rows are
/// inserted last, all at once, just before COMMIT (`record`), after every
/// book of the write is written. What comes before needs no such order (a
/// book's own lock orders the writers of that book), so a batch of 1,000
/// writes holds the feed's lock for a few statements and its commit, not
/// from its first write on. (The alternative, a row's xid8 and a cursor
/// bounded by `pg_snapshot_xmin`, keeps writers parallel but needs a
/// two-part cursor and has no SQLite counterpart.)
enum ChangeLog {
    static let lockName = "lib-server change log"
    /// The PostgreSQL channel a commit that changed the feed is announced on.
    static let notifyChannel = "lib_server_changes"
    /// How long a deletion stays in the feed by default: as long as a session lasts.
    static let defaultRetention: TimeInterval = 30 * 24 * 3600

    /// One entry of the feed: a book as it is now (nil document: deleted).
    struct Entry {
        let seq: Int64
        let id: String
        let etag: String
        let document: String?
    }

    /// The feed's identity and horizon: cursors name the database they come
    /// from and its history (`epoch`: a random id per database and, on
    /// PostgreSQL, its timeline), so a cursor from another database, or from
    /// before a failover, is never read as one of this one's positions.
    struct State {
        let epoch: String
        /// Positions at or below this may have been pruned.
        let horizon: Int64
        /// The highest position handed out and committed.
        let newest: Int64
    }

    /// A book that changed in a write: the feed shows its current state at
    /// the position the write's commit gives it.
    struct Change: Equatable {
        let id: String
        let deleted: Bool
    }

    /// Records the books a write transaction changed (each once, the last
    /// change of a book counting), and prunes tombstones older than
    /// `retention`. Call it last, just before the transaction commits: it
    /// takes the feed's lock, which is held until then (see above).
    /// `device`: the writing device (`DeviceName`), nil when unknown.
    static func record(_ changes: [Change], by device: String?, at now: Double, retention: TimeInterval,
                       in db: any SQLConnection) throws {
        var last: [String: Int] = [:]
        for (index, change) in changes.enumerated() { last[change.id] = index }
        let changes = changes.enumerated().filter { last[$0.element.id] == $0.offset }.map(\.element)
        guard !changes.isEmpty else { return }
        // Delivered when the transaction commits: other instances' waiting
        // feed requests answer then. Sent before the lock, not to hold it longer.
        if db.dialect == .postgresql { try db.send("SELECT pg_notify(?1, '')", [.text(notifyChannel)]) }
        try db.lock(lockName)
        let cutoff = now - retention
        switch db.dialect {
        case .postgresql:
            // Three statements whatever the count, sent with the COMMIT (`SQLConnection.send`):
            // the lock is held for that one round trip.
            let ids = SQLValue.postgresArray(changes.map(\.id))
            let deleted = SQLValue.postgresArray(changes.map { $0.deleted ? "1" : "0" })
            try db.send("DELETE FROM changes WHERE book_id = ANY(?1::text[])", [ids])
            try db.send("""
                INSERT INTO changes (book_id, deleted, at, device)
                SELECT u.id, u.deleted, ?3::double precision, ?4 FROM unnest(?1::text[], ?2::int[]) WITH ORDINALITY AS u(id, deleted, n)
                ORDER BY u.n
                """, [ids, deleted, .real(now), device.map(SQLValue.text) ?? .null])
            try db.send("""
                WITH pruned AS (DELETE FROM changes WHERE deleted = 1 AND at < ?1 RETURNING seq)
                UPDATE change_feed SET horizon = p.seq FROM (SELECT MAX(seq) AS seq FROM pruned) AS p WHERE horizon < p.seq
                """, [.real(cutoff)])
        case .sqlite:
            for change in changes {
                try db.run("DELETE FROM changes WHERE book_id = ?1", [.text(change.id)])
                try db.run("INSERT INTO changes (book_id, deleted, at, device) VALUES (?1, ?2, ?3, ?4)",
                           [.text(change.id), .integer(change.deleted ? 1 : 0), .real(now), device.map(SQLValue.text) ?? .null])
            }
            if let pruned = try db.scalar("SELECT MAX(seq) FROM changes WHERE deleted = 1 AND at < ?1", [.real(cutoff)])?.integer {
                try db.run("DELETE FROM changes WHERE deleted = 1 AND at < ?1", [.real(cutoff)])
                try db.run("UPDATE change_feed SET horizon = ?1 WHERE horizon < ?1", [.integer(pruned)])
            }
        }
    }

    /// The most `behind` counts: a device further behind hears "at least this".
    static let behindCap = 100_000

    /// How many books changed after position `after` whose latest change
    /// is not `device`'s own write: what that device has yet to pull (at
    /// most `behindCap`).
    static func behind(after: Int64, device: String?, in db: any SQLConnection) throws -> Int {
        let notOwn = db.dialect == .postgresql ? "device IS DISTINCT FROM ?2" : "device IS NOT ?2"
        let count = try db.scalar("SELECT count(*) FROM (SELECT 1 FROM changes WHERE seq > ?1 AND \(notOwn) LIMIT ?3) AS behind",
                                  [.integer(after), device.map(SQLValue.text) ?? .null, .integer(Int64(behindCap))])?.integer
        return Int(count ?? 0)
    }

    /// One page of the feed: its entries, the position it ends at (nil:
    /// nothing after `after`), and whether more changes follow it.
    struct Page {
        let entries: [Entry]
        let end: Int64?
        let more: Bool
    }

    /// Up to `limit` entries after position `after`, in position (commit)
    /// order, and at most about `maxBytes` of documents (always at least one
    /// entry): the page ends early rather than hold a thousand large books
    /// at once. The sizes are read first (on PostgreSQL from the stored
    /// value's header, without loading it), so only the page's documents
    /// are loaded.
    static func page(after: Int64, limit: Int, maxBytes: Int, in db: any SQLConnection) throws -> Page {
        let sizes = try db.query("""
            SELECT c.seq, \(PageBudget.byteLength("b.document", db.dialect)) FROM changes c JOIN books b ON b.id = c.book_id
            WHERE c.seq > ?1 ORDER BY c.seq LIMIT ?2
            """, [.integer(after), .integer(Int64(limit + 1))])
        let count = PageBudget.rowsThatFit(sizes, limit: limit, maxBytes: maxBytes)
        guard count > 0, let end = sizes[count - 1][0].integer else { return Page(entries: [], end: nil, more: false) }
        // A book changed again between the two reads has moved past `end`:
        // it comes in a later page, and no new position can fall below `end`.
        let entries = try db.query("""
            SELECT c.seq, c.book_id, b.etag, b.document FROM changes c JOIN books b ON b.id = c.book_id
            WHERE c.seq > ?1 AND c.seq <= ?2 ORDER BY c.seq
            """, [.integer(after), .integer(end)]).map { row in
            Entry(seq: row[0].integer ?? 0, id: row[1].text ?? "", etag: row[2].text ?? "", document: row[3].text)
        }
        return Page(entries: entries, end: end, more: sizes.count > count)
    }

    /// Read after the entries: a prune that removed tombstones the entries'
    /// read did not see committed before it, so its horizon shows here.
    static func state(in db: any SQLConnection) throws -> State {
        let row = try db.query("SELECT epoch, horizon, (SELECT COALESCE(MAX(seq), 0) FROM changes)\(timeline(db)) FROM change_feed").first
        let horizon = row?[1].integer ?? 0
        let epoch = (row?[0].text ?? "") + (db.dialect == .postgresql ? row?[3].text ?? "" : "")
        return State(epoch: epoch, horizon: horizon, newest: max(horizon, row?[2].integer ?? 0))
    }

    /// A new random epoch (`lib-server restore`): every cursor handed out
    /// before is answered 410, and its device lists the books again.
    /// Returns the new epoch's random part.
    static func startNewEpoch(in db: any SQLConnection) throws -> String {
        let random = db.dialect == .postgresql ? "substr(md5(random()::text || clock_timestamp()::text), 1, 12)" : "lower(hex(randomblob(6)))"
        try db.run("UPDATE change_feed SET epoch = \(random)", [])
        return try db.scalar("SELECT epoch FROM change_feed", [])?.text ?? ""
    }

    /// On PostgreSQL, the epoch also names the server's timeline (8 hex
    /// digits), which a promotion moves on: positions handed out by the old
    /// primary after the last one its standby received can be handed out
    /// again, for other changes, by the promoted standby. So a cursor from
    /// before a failover is answered 410 (list again), never read as a
    /// position of the new history. A standby names the timeline of its
    /// last restart point (behind at worst, which only costs a re-listing).
    private static func timeline(_ db: any SQLConnection) -> String {
        guard db.dialect == .postgresql else { return "" }
        return """
            , CASE WHEN pg_is_in_recovery() THEN (SELECT lpad(to_hex(timeline_id), 8, '0') FROM pg_control_checkpoint())
                ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END
            """
    }
}

/// A feed position as the client sees it: `EPOCH-SEQ`, opaque to clients.
struct ChangeCursor: Equatable {
    let epoch: String
    let seq: Int64

    var text: String { "\(epoch)-\(seq)" }

    init(epoch: String, seq: Int64) {
        self.epoch = epoch
        self.seq = seq
    }

    /// nil when the text is not a cursor at all (400).
    init?(parsing text: String) {
        guard let dash = text.lastIndex(of: "-") else { return nil }
        let epoch = String(text[..<dash])
        guard !epoch.isEmpty, epoch.count <= 64, epoch.allSatisfy({ $0.isHexDigit }),
              let seq = Int64(text[text.index(after: dash)...]), seq >= 0 else { return nil }
        self.init(epoch: epoch, seq: seq)
    }
}
