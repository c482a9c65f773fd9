import LibStore

/// The account's durable queue of writes: saved in one transaction with a
/// fresh idempotency key, sent in order, removed only when the server has
/// answered.
public struct Outbox {
    let db: Database

    /// A write the user just made.
    public struct NewWrite: Sendable {
        public var path: String
        public var method: OutboxItem.Method
        public var createOnly: Bool
        public var body: String?
        public var baseBody: String?
        public var baseETag: String?

        public init(path: String, method: OutboxItem.Method, createOnly: Bool = false, body: String?, baseBody: String?, baseETag: String?) {
            self.path = path
            self.method = method
            self.createOnly = createOnly
            self.body = body
            self.baseBody = baseBody
            self.baseETag = baseETag
        }
    }

    public enum EnqueueOutcome: Sendable, Equatable {
        /// A new item joined the queue.
        case queued(seq: Int64)
        /// Merged into a write of the same path that was never attempted.
        case coalesced(seq: Int64)
        /// A create followed by a delete, neither ever sent: nothing is left to do.
        case cancelled
    }

    /// Saves a write durably. When the newest write of the same path is still
    /// pending and was never attempted, the two become one (its key was never
    /// sent, so it can still change); otherwise the write queues behind it.
    @discardableResult
    public func enqueue(_ write: NewWrite, now: UnixSeconds = UnixClock.now()) throws -> EnqueueOutcome {
        try db.write { db in
            let last = try Self.items(db, "WHERE path = ?1 ORDER BY seq DESC LIMIT 1", [.text(write.path)]).first
            if let last, last.status == .pending, last.attempts == 0 {
                if last.createOnly && write.method == .delete {
                    try db.run("DELETE FROM outbox WHERE seq = ?1", [.integer(last.seq)])
                    return .cancelled
                }
                try db.run("UPDATE outbox SET method = ?2, body = ?3, updated_at = ?4 WHERE seq = ?1",
                           [.integer(last.seq), .text(write.method.rawValue), SQLValue(write.body), .real(now)])
                return .coalesced(seq: last.seq)
            }
            // Behind an earlier write of the same path, the precondition is
            // filled in from that write's answer when it succeeds.
            let ifMatch = last == nil ? write.baseETag : nil
            try db.run("""
                INSERT INTO outbox (path, method, create_only, body, base_body, base_etag, if_match, idempotency_key, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
                """, [.text(write.path), .text(write.method.rawValue), SQLValue(write.createOnly), SQLValue(write.body),
                      SQLValue(write.baseBody), SQLValue(write.baseETag), SQLValue(ifMatch), .text(Self.newKey()),
                      .real(now)])
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
        try Self.items(db, """
            WHERE seq > ?1 AND status = 'pending' AND NOT EXISTS (
                SELECT 1 FROM outbox AS earlier WHERE earlier.path = outbox.path AND earlier.seq < outbox.seq
                AND earlier.status <> 'pending')
            ORDER BY seq LIMIT 1
            """, [.integer(seq)]).first
    }

    /// Counted durably before the request is sent: from then on the item is
    /// "attempted" and no later edit may merge into it.
    public func markAttempted(seq: Int64, now: UnixSeconds = UnixClock.now()) throws {
        try db.run("UPDATE outbox SET attempts = attempts + 1, updated_at = ?2 WHERE seq = ?1",
                   [.integer(seq), .real(now)])
    }

    /// Marks every write the pass may send as attempted, in one transaction,
    /// before it sends any of them. A write waiting behind a conflict or a
    /// rejected write of its path cannot be sent, so it is not marked: it
    /// was never on the wire, and `lib discard` may take it back.
    public func markPendingAttempted(now: UnixSeconds = UnixClock.now()) throws {
        try db.run("""
            UPDATE outbox SET attempts = attempts + 1, updated_at = ?1 WHERE status = 'pending' AND NOT EXISTS (
                SELECT 1 FROM outbox AS earlier WHERE earlier.path = outbox.path AND earlier.seq < outbox.seq
                AND earlier.status <> 'pending')
            """, [.real(now)])
    }

    /// A transport failure, 5xx or 429: the item stays, first in line.
    public func recordFailure(seq: Int64, error: String, now: UnixSeconds = UnixClock.now()) throws {
        try db.run(cached: "UPDATE outbox SET last_error = ?2, updated_at = ?3 WHERE seq = ?1",
                   [.integer(seq), .text(error), .real(now)])
    }

    /// A 2xx: in one transaction, the item leaves the outbox, the cache takes
    /// the server's document (or forgets a deleted one), and the next write
    /// of the same path gets the new ETag as its precondition.
    public func recordSuccess(seq: Int64, document: String?, etag: String?, now: UnixSeconds = UnixClock.now()) throws {
        try db.write { db in try Self.recordSuccess(db, seq: seq, document: document, etag: etag, now: now) }
    }

    static func recordSuccess(_ db: Database, seq: Int64, document: String?, etag: String?, now: UnixSeconds) throws {
        guard let item = try Self.items(db, "WHERE seq = ?1", [.integer(seq)]).first else { return }
        try db.run(cached: "DELETE FROM outbox WHERE seq = ?1", [.integer(seq)])
        let cache = Cache(db: db)
        if item.method == .delete {
            try cache.forget(item.path)
        } else if let body = document ?? item.body {
            try cache.save(item.path, body: body, etag: etag, at: now)
        }
        if let next = try db.scalar(cached: "SELECT seq FROM outbox WHERE path = ?1 AND seq > ?2 ORDER BY seq LIMIT 1",
                                    [.text(item.path), .integer(seq)])?.integer {
            let chained = Precondition.after(item.method, etag: etag)
            try db.run(cached: "UPDATE outbox SET if_match = ?2, create_only = ?3 WHERE seq = ?1",
                       [.integer(next), SQLValue(chained.ifMatch), SQLValue(chained.createOnly)])
        }
    }

    /// Records a push's answers, in the order they came, in one transaction
    /// (one commit, so one fsync, for the whole batch), and with them the
    /// failure that stopped the pass, if any.
    public func record(_ answers: [WriteAnswer], failure: (seq: Int64, error: String)? = nil,
                       now: UnixSeconds = UnixClock.now()) throws {
        guard !answers.isEmpty || failure != nil else { return }
        try db.write { db in
            let outbox = Outbox(db: db)
            for answer in answers {
                switch answer.outcome {
                case .applied(let document, let etag):
                    try Self.recordSuccess(db, seq: answer.seq, document: document, etag: etag, now: now)
                case .conflict(let theirs, let etag):
                    try outbox.recordConflict(seq: answer.seq, theirsBody: theirs, theirsETag: etag, now: now)
                case .rejected(let problem):
                    try outbox.recordRejection(seq: answer.seq, problem: problem, now: now)
                case .unauthorized, .temporary:
                    break  // the pass stops at these: they come as `failure`
                }
            }
            if let failure { try outbox.recordFailure(seq: failure.seq, error: failure.error, now: now) }
        }
    }

    /// A 412: the item waits for `lib resolve`, holding the server's current
    /// document (nil when it no longer exists) and ETag from the answer.
    public func recordConflict(seq: Int64, theirsBody: String?, theirsETag: String?, now: UnixSeconds = UnixClock.now()) throws {
        try db.run(cached: """
            UPDATE outbox SET status = 'conflict', theirs_body = ?2, theirs_etag = ?3, last_error = NULL, updated_at = ?4
            WHERE seq = ?1
            """, [.integer(seq), SQLValue(theirsBody), SQLValue(theirsETag), .real(now)])
    }

    /// Another 4xx: the server will not take this write as it is.
    public func recordRejection(seq: Int64, problem: String, now: UnixSeconds = UnixClock.now()) throws {
        try db.run(cached: "UPDATE outbox SET status = 'rejected', problem = ?2, last_error = NULL, updated_at = ?3 WHERE seq = ?1",
                   [.integer(seq), .text(problem), .real(now)])
    }

    /// Puts a settled conflict back in line with a new body and precondition,
    /// under a new key (the old key's answer was the 412).
    public func requeue(seq: Int64, body: String?, method: OutboxItem.Method, ifMatch: String?, createOnly: Bool, now: UnixSeconds = UnixClock.now()) throws {
        try db.run("""
            UPDATE outbox SET status = 'pending', method = ?2, body = ?3, if_match = ?4, create_only = ?5,
                idempotency_key = ?6, theirs_body = NULL, theirs_etag = NULL, problem = NULL, last_error = NULL,
                attempts = 0, updated_at = ?7
            WHERE seq = ?1
            """, [.integer(seq), .text(method.rawValue), SQLValue(body), SQLValue(ifMatch), SQLValue(createOnly),
                  .text(Self.newKey()), .real(now)])
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
                removed += try Self.items(db, "WHERE path = ?1", [.text(path)]).count
                try db.run("DELETE FROM outbox WHERE path = ?1", [.text(path)])
            }
            return removed
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

    static func items(_ db: Database, _ clause: String, _ values: [SQLValue]) throws -> [OutboxItem] {
        try db.withCachedStatement("""
            SELECT seq, path, method, create_only, body, base_body, base_etag, if_match, idempotency_key, status,
                attempts, last_error, theirs_body, theirs_etag, problem, created_at, updated_at FROM outbox \(clause)
            """) { statement in
            try statement.bind(values)
            return try statement.rows { s in
                OutboxItem(
                    seq: s.integer(at: 0), path: s.text(at: 1) ?? "",
                    method: OutboxItem.Method(rawValue: s.text(at: 2) ?? "") ?? .put, createOnly: s.integer(at: 3) != 0,
                    body: s.text(at: 4), baseBody: s.text(at: 5), baseETag: s.text(at: 6), ifMatch: s.text(at: 7),
                    idempotencyKey: s.text(at: 8) ?? "", status: OutboxItem.Status(rawValue: s.text(at: 9) ?? "") ?? .pending,
                    attempts: Int(s.integer(at: 10)), lastError: s.text(at: 11), theirsBody: s.text(at: 12),
                    theirsETag: s.text(at: 13), problem: s.text(at: 14),
                    createdAt: s.value(at: 15).real ?? 0, updatedAt: s.value(at: 16).real ?? 0)
            }
        }
    }
}
