import LibJSON
import LibStore
import LibBase

/// The account's durable queue of writes: saved in one transaction with a
/// fresh idempotency key, sent in order, removed only when the server has
/// answered.
public struct Outbox {
    let db: Database

    /// A write the user just made: what they did, and the document as they
    /// saw it with the server's ETag under it (nil for a create).
    public struct NewWrite: Sendable, Equatable {
        public var path: String
        public var intent: WriteIntent
        public var baseBody: String?
        public var baseETag: String?
        /// The pushed log's entry this write undoes (`lib revert`): logged as a revert.
        public var reverts: Int64?

        public init(path: String, intent: WriteIntent, baseBody: String?, baseETag: String?, reverts: Int64? = nil) {
            self.reverts = reverts
            self.path = path
            self.intent = intent
            self.baseBody = baseBody
            self.baseETag = baseETag
        }
    }

    public enum EnqueueOutcome: Sendable, Equatable {
        /// A new item joined the queue.
        case queued(seq: Int64)
        /// Merged into a write of the same path that was never sent.
        case coalesced(seq: Int64)
        /// A create followed by a delete, neither ever sent: nothing is left to do.
        case cancelled
    }

    /// Saves a write durably. When the newest write of the same path is still
    /// pending and was never sent, the two intents become one (its key is
    /// unknown to the server, so it can still change); otherwise the write
    /// queues behind it and goes against the version that one's answer gives.
    @discardableResult
    public func enqueue(_ write: NewWrite, now: UnixSeconds) throws -> EnqueueOutcome {
        try db.write { db in
            let last = try Self.items(db, "WHERE path = ?1 ORDER BY seq DESC LIMIT 1", [.text(write.path)]).first
            if let last, last.isUnsent {
                guard let merged = last.intent.followed(by: write.intent, base: last.base) else {
                    try db.run("DELETE FROM outbox WHERE seq = ?1", [.integer(last.seq)])
                    return .cancelled
                }
                try Self.store(merged, seq: last.seq, db, now: now)
                return .coalesced(seq: last.seq)
            }
            let ifMatch = last == nil && !write.intent.isCreate ? write.baseETag : nil
            let stored = StoredIntent(write.intent)
            try db.run("""
                INSERT INTO outbox (path, method, create_only, body, changes, base_body, base_etag, if_match,
                    idempotency_key, created_at, updated_at, reverts)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)
                """, [.text(write.path), .text(stored.method), SQLValue(stored.createOnly), SQLValue(stored.body),
                      SQLValue(stored.changes), SQLValue(write.baseBody), SQLValue(write.baseETag), SQLValue(ifMatch),
                      .text(Self.newKey()), .real(now), SQLValue(write.reverts)])
            return .queued(seq: db.lastInsertRowID)
        }
    }

    /// A new idempotency key: 128 random bits, as a UUID.
    static func newKey() -> String { IdempotencyKey.make() }

    /// All items in send order.
    public func all() throws -> [OutboxItem] { try Self.items(db, "ORDER BY seq", []) }

    public func item(seq: Int64) throws -> OutboxItem? { try Self.items(db, "WHERE seq = ?1", [.integer(seq)]).first }

    /// Items of one path, oldest first.
    public func items(for path: String) throws -> [OutboxItem] {
        try Self.items(db, "WHERE path = ?1 ORDER BY seq", [.text(path)])
    }

    /// The next write to send after `seq`: the oldest pending item whose path
    /// has no conflict or rejected write ahead of it (those wait for `lib
    /// resolve`; other paths go on).
    public func nextSendable(after seq: Int64 = 0) throws -> OutboxItem? {
        try Self.items(db, "WHERE seq > ?1 AND \(Self.sendable) ORDER BY seq LIMIT 1", [.integer(seq)]).first
    }

    static let sendable = """
        status = 'pending' AND NOT EXISTS (
            SELECT 1 FROM outbox AS earlier WHERE earlier.path = outbox.path AND earlier.seq < outbox.seq
            AND earlier.status <> 'pending')
        """

    /// Before a pass sends anything, in one transaction: claims every write
    /// it may send, so that no edit merges into one whose request may be on
    /// the wire. A claim left by a push that died is a write that may have
    /// reached the server: it counts as an attempt. A write waiting behind a
    /// conflict or a rejected write of its path is not claimed.
    ///
    /// Each write claimed for the first time is marked with the protocol the
    /// pass sends with (`sentWith`), and keeps it: the server records a key
    /// with the request that carried it, and the same write sent again in
    /// the other protocol's form would be another request under that key.
    public func claimSendable(sendingWith wireProtocol: String = "v1", now: UnixSeconds) throws {
        try db.write { db in
            try db.run("UPDATE outbox SET attempts = attempts + 1, claimed = 0 WHERE claimed = 1")
            try db.run("UPDATE outbox SET claimed = 1, sent_with = COALESCE(sent_with, ?1) WHERE \(Self.sendable)",
                       [.text(wireProtocol)])
        }
    }

    /// A write's request failed without settling it; `sent`: it may have
    /// reached the server (a connection was made and bytes written).
    public func recordFailure(seq: Int64, error: String, sent: Bool, now: UnixSeconds) throws {
        try db.run(cached: """
            UPDATE outbox SET last_error = ?2, attempts = attempts + ?3, claimed = 0,
                updated_at = CASE WHEN ?3 = 1 THEN ?4 ELSE updated_at END
            WHERE seq = ?1
            """, [.integer(seq), .text(error), .integer(sent ? 1 : 0), .real(now)])
    }

    /// The failure that stopped a pass, for `record`.
    public struct Failure: Sendable, Equatable {
        public var seq: Int64
        public var error: String
        public var sent: Bool
    }

    /// Records a push's answers, in the order they came, in one transaction
    /// (one commit, so one fsync, for the whole batch), with the failure that
    /// stopped the pass, if any; `finished`: the pass is over, and the writes
    /// it claimed but never sent are free again. Returns the writes that
    /// became conflicts without being sent (see `Chain`).
    @discardableResult
    public func record(_ answers: [OutboxAnswer], failure: Failure? = nil, finished: Bool = false,
                       now: UnixSeconds) throws -> [OutboxItem] {
        try record(answers, failures: failure.map { [$0] } ?? [], finished: finished, now: now)
    }

    /// The same, with a failure for each write of a batch that got none of its own (a batch cut by a lost answer).
    public func record(_ answers: [OutboxAnswer], failures: [Failure], finished: Bool = false,
                       now: UnixSeconds) throws -> [OutboxItem] {
        guard !answers.isEmpty || !failures.isEmpty || finished else { return [] }
        return try db.write { db in
            let outbox = Outbox(db: db)
            var heldBack: [OutboxItem] = []
            var settled: [Cache.Settled] = []
            for answer in answers {
                switch answer.outcome {
                case .applied(let document, let etag, let merged):
                    if let held = try Self.recordSuccess(db, seq: answer.seq, document: document, etag: etag, merged: merged,
                                                         now: now, settled: &settled) {
                        heldBack.append(held)
                    }
                case .conflict(let theirs, let etag):
                    try outbox.recordConflict(seq: answer.seq, theirsBody: theirs, theirsETag: etag, now: now)
                case .rejected(let problem):
                    try outbox.recordRejection(seq: answer.seq, problem: problem, now: now)
                case .unauthorized, .temporary:
                    break  // the pass stops at these: they come as `failure`
                }
            }
            try Cache(db: db).settle(settled, at: now)
            for failure in failures {
                try outbox.recordFailure(seq: failure.seq, error: failure.error, sent: failure.sent, now: now)
            }
            if finished { try db.run("UPDATE outbox SET claimed = 0 WHERE claimed = 1") }
            return heldBack
        }
    }

    /// A 2xx: in one transaction, the item leaves the outbox for the pushed
    /// log (`PushedLog`), the cache takes the server's document (or forgets
    /// a deleted one), and the next write of the same path goes against
    /// that version, or becomes a conflict when its intent clashes with it
    /// (returned).
    public func recordSuccess(seq: Int64, document: String?, etag: String?, now: UnixSeconds) throws {
        try db.write { db in
            var settled: [Cache.Settled] = []
            _ = try Self.recordSuccess(db, seq: seq, document: document, etag: etag, now: now, settled: &settled)
            try Cache(db: db).settle(settled, at: now)
        }
    }

    /// `settled` gets what the cache is to take (`Cache.settle`, before the transaction ends).
    static func recordSuccess(_ db: Database, seq: Int64, document: String?, etag: String?, merged: MergedChanges? = nil,
                              now: UnixSeconds, settled: inout [Cache.Settled]) throws -> OutboxItem? {
        // Only what is needed, without reading the intent back: this runs
        // once per write of a push.
        guard let row = try db.withCachedStatement("SELECT path, method FROM outbox WHERE seq = ?1", { statement in
            try statement.bind([.integer(seq)])
            return try statement.rows { (path: $0.text(at: 0) ?? "", isDelete: $0.text(at: 1) == "DELETE") }.first
        }) else { return nil }
        let version: Chain.Version
        if row.isDelete {
            version = Chain.Version(body: nil, etag: nil)
        } else if let document {
            version = Chain.Version(body: document, etag: etag)
        } else {
            guard let item = try Self.items(db, "WHERE seq = ?1", [.integer(seq)]).first else { return nil }
            version = Chain.Version(after: item, document: nil, etag: etag)
        }
        try PushedLog.record(db, seq: seq, etag: etag, merged: merged, now: now)
        try db.run(cached: "DELETE FROM outbox WHERE seq = ?1", [.integer(seq)])
        settled.append((row.path, version.body, etag))
        guard let next = try Self.items(db, "WHERE path = ?1 AND seq > ?2 ORDER BY seq LIMIT 1",
                                        [.text(row.path), .integer(seq)]).first, next.status == .pending else { return nil }
        switch Chain.next(next, after: version) {
        case .send(let rebased):
            try db.run(cached: "UPDATE outbox SET base_body = ?2, base_etag = ?3, if_match = ?3 WHERE seq = ?1",
                       [.integer(next.seq), SQLValue(rebased.baseBody), SQLValue(rebased.baseETag)])
            return nil
        case .clash:
            try Outbox(db: db).recordConflict(seq: next.seq, theirsBody: version.body, theirsETag: version.etag, now: now)
            return next
        }
    }

    /// A 412: the item waits for `lib resolve`, holding the server's current
    /// document (nil when it no longer exists) and ETag from the answer.
    public func recordConflict(seq: Int64, theirsBody: String?, theirsETag: String?, now: UnixSeconds) throws {
        try db.run(cached: """
            UPDATE outbox SET status = 'conflict', theirs_body = ?2, theirs_etag = ?3, last_error = NULL, claimed = 0,
                updated_at = ?4
            WHERE seq = ?1
            """, [.integer(seq), SQLValue(theirsBody), SQLValue(theirsETag), .real(now)])
    }

    /// Another 4xx: the server will not take this write as it is.
    public func recordRejection(seq: Int64, problem: String, now: UnixSeconds) throws {
        try db.run(cached: """
            UPDATE outbox SET status = 'rejected', problem = ?2, last_error = NULL, claimed = 0, updated_at = ?3 WHERE seq = ?1
            """, [.integer(seq), .text(problem), .real(now)])
    }

    /// Puts a settled write back in line with a new intent, against the
    /// server's version it was settled against (its new base), under a new
    /// key (the old key's answer was the 412 or the rejection).
    public func requeue(seq: Int64, intent: WriteIntent, baseBody: String?, baseETag: String?,
                        now: UnixSeconds) throws {
        let stored = StoredIntent(intent)
        try db.run("""
            UPDATE outbox SET status = 'pending', method = ?2, create_only = ?3, body = ?4, changes = ?5,
                base_body = ?6, base_etag = ?7, if_match = ?8, idempotency_key = ?9, theirs_body = NULL,
                theirs_etag = NULL, problem = NULL, last_error = NULL, attempts = 0, claimed = 0, updated_at = ?10
            WHERE seq = ?1
            """, [.integer(seq), .text(stored.method), SQLValue(stored.createOnly), SQLValue(stored.body),
                  SQLValue(stored.changes), SQLValue(baseBody), SQLValue(baseETag),
                  SQLValue(intent.isCreate ? nil : baseETag), .text(Self.newKey()), .real(now)])
    }

    /// A write that is first of its path again (the one before it was
    /// dropped) goes against `version`, or waits for `lib resolve` when its
    /// intent clashes with it.
    @discardableResult
    public func advance(_ item: OutboxItem, onto version: Chain.Version, now: UnixSeconds) throws -> Chain.Next {
        let next = Chain.next(item, after: version)
        guard item.status == .pending else { return next }
        switch next {
        case .send(let rebased):
            try db.run("UPDATE outbox SET base_body = ?2, base_etag = ?3, if_match = ?3 WHERE seq = ?1",
                       [.integer(item.seq), SQLValue(rebased.baseBody), SQLValue(rebased.baseETag)])
        case .clash:
            try recordConflict(seq: item.seq, theirsBody: version.body, theirsETag: version.etag, now: now)
        }
        return next
    }

    public func remove(seq: Int64) throws {
        try db.run("DELETE FROM outbox WHERE seq = ?1", [.integer(seq)])
    }

    /// Takes back every write of these paths (pending, in conflict or
    /// rejected), in one transaction; returns how many were removed.
    @discardableResult
    public func discard(paths: [String]) throws -> Int {
        try db.write { db in
            var removed = 0
            for path in paths {
                removed += Int(try db.scalar("SELECT count(*) FROM outbox WHERE path = ?1", [.text(path)])?.integer ?? 0)
                try db.run("DELETE FROM outbox WHERE path = ?1", [.text(path)])
            }
            // What the mass-change guard refused is no longer what waits.
            if removed > 0 { try MassChangeRefusal.clear(db) }
            return removed
        }
    }

    /// Takes back every write of the account (`logout --discard`), in one
    /// transaction; returns how many were removed.
    @discardableResult
    public func discardAll() throws -> Int {
        try db.write { db in
            let count = Int(try db.scalar("SELECT count(*) FROM outbox")?.integer ?? 0)
            try db.execute("DELETE FROM outbox")
            try MassChangeRefusal.clear(db)
            return count
        }
    }

    /// The paths that have writes in the outbox, in the order of their oldest write.
    public func paths() throws -> [String] {
        try db.query("SELECT path FROM outbox GROUP BY path ORDER BY min(seq)").compactMap { $0["path"].text }
    }

    /// Pending, conflict and rejected counts, in constant time.
    public func counts() throws -> (pending: Int, conflicts: Int, rejected: Int) {
        var counts = (pending: 0, conflicts: 0, rejected: 0)
        for row in try db.query("SELECT status, n FROM outbox_counts") {
            let n = Int(row["n"].integer ?? 0)
            switch row["status"].text {
            case "pending": counts.pending = n
            case "conflict": counts.conflicts = n
            case "rejected": counts.rejected = n
            default: break
            }
        }
        return counts
    }

    static let columns = """
        seq, path, method, create_only, body, changes, base_body, base_etag, if_match, idempotency_key, status,
        attempts, claimed, last_error, theirs_body, theirs_etag, problem, created_at, updated_at, sent_with
        """

    static func items(_ db: Database, _ clause: String, _ values: [SQLValue]) throws -> [OutboxItem] {
        try db.withCachedStatement("SELECT \(columns) FROM outbox \(clause)") { statement in
            try statement.bind(values)
            return try statement.rows { s in
                let seq = s.integer(at: 0)
                let path = s.text(at: 1) ?? ""
                guard let intent = StoredIntent(method: s.text(at: 2), createOnly: s.integer(at: 3) != 0, body: s.text(at: 4),
                                                changes: s.text(at: 5)).intent else {
                    throw UnreadableWrite(seq: seq, path: path)
                }
                return OutboxItem(
                    seq: seq, path: path, intent: intent, baseBody: s.text(at: 6), baseETag: s.text(at: 7),
                    ifMatch: s.text(at: 8), idempotencyKey: s.text(at: 9) ?? "",
                    status: OutboxItem.Status(rawValue: s.text(at: 10) ?? "") ?? .pending,
                    attempts: Int(s.integer(at: 11)), claimed: s.integer(at: 12) != 0, lastError: s.text(at: 13),
                    theirsBody: s.text(at: 14), theirsETag: s.text(at: 15), problem: s.text(at: 16),
                    createdAt: s.value(at: 17).real ?? 0, updatedAt: s.value(at: 18).real ?? 0, sentWith: s.text(at: 19))
            }
        }
    }

    /// Writes an intent into an existing row (coalescing): a revert with
    /// another write folded in is no longer only a revert.
    private static func store(_ intent: WriteIntent, seq: Int64, _ db: Database, now: UnixSeconds) throws {
        let stored = StoredIntent(intent)
        try db.run("UPDATE outbox SET method = ?2, create_only = ?3, body = ?4, changes = ?5, updated_at = ?6, reverts = NULL WHERE seq = ?1",
                   [.integer(seq), .text(stored.method), SQLValue(stored.createOnly), SQLValue(stored.body),
                    SQLValue(stored.changes), .real(now)])
    }
}
