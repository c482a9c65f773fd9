import Foundation
import LibStore

/// The answer recorded for an idempotency key, replayed for a retry.
struct RecordedAnswer: Sendable {
    let requestHash: String
    let status: Int
    let etag: String?
    let body: [UInt8]
}

/// Idempotency keys, scoped per user and kept 24 hours, shared by every
/// server on the database. A write first claims its key (a row with status
/// 0, a claim id and a lease) in a transaction of its own; then, in the
/// write's transaction, checks that the claim is still its own, applies the
/// write and turns the claim into the recorded answer. So the first
/// committed outcome is the one kept, a request whose key is claimed by a
/// write in flight (in this process or another) gets 409, and a server that
/// dies mid-write blocks the key only until its lease runs out.
enum IdempotencyLedger {
    static let retention: TimeInterval = 24 * 3600
    /// Longer than any write takes (the database's lock waits are 5 s);
    /// short enough that a retry after a crashed server soon goes through.
    static let lease: TimeInterval = 30

    enum Claim {
        /// The key is ours under this claim id: go on and write.
        case claimed(String)
        case replay(RecordedAnswer)
        case keyReusedWithAnotherRequest
        case inFlight
    }

    /// Claims the key for a request, unless it has an answer or a live claim.
    /// Runs in its own write transaction.
    static func claim(user: String, key: String, requestHash: String, at now: Double, in db: any SQLConnection) throws -> Claim {
        let claim = Crypto.randomHex(bytes: 8)
        let inserted = try db.run("""
            INSERT INTO idempotency (user_id, key, request_hash, status, etag, body, created_at, claim, lease_until)
            VALUES (?1, ?2, ?3, 0, NULL, ?4, ?5, ?6, ?7) ON CONFLICT (user_id, key) DO NOTHING
            """, [.text(user), .text(key), .text(requestHash), bodyValue([]), .real(now), .text(claim), .real(now + lease)])
        if inserted == 1 { return .claimed(claim) }
        guard let row = try db.query("""
            SELECT request_hash, status, etag, body, created_at, lease_until FROM idempotency
            WHERE user_id = ?1 AND key = ?2
            """ + db.forUpdate, [.text(user), .text(key)]).first else {
            return .inFlight  // deleted between the two statements: the client's retry will claim it
        }
        let sameRequest = row["request_hash"].text == requestHash
        let expired = (row["created_at"].real ?? 0) < now - retention
        if !expired {
            let status = Int(row["status"].integer ?? 0)
            if status != 0 {
                guard sameRequest else { return .keyReusedWithAnotherRequest }
                return .replay(RecordedAnswer(requestHash: requestHash, status: status,
                                              etag: row["etag"].text, body: row["body"].blob ?? []))
            }
            if (row["lease_until"].real ?? 0) > now { return sameRequest ? .inFlight : .keyReusedWithAnotherRequest }
        }
        // An answer past its retention, or a claim whose server never finished: take the key over.
        try db.run("""
            UPDATE idempotency SET request_hash = ?3, status = 0, etag = NULL, body = ?4, created_at = ?5,
                claim = ?6, lease_until = ?7
            WHERE user_id = ?1 AND key = ?2
            """, [.text(user), .text(key), .text(requestHash), bodyValue([]), .real(now), .text(claim), .real(now + lease)])
        return .claimed(claim)
    }

    /// In the write's transaction: whether the claim is still ours. In
    /// PostgreSQL the UPDATE also locks the row, so nobody can take the
    /// claim over before this transaction ends.
    static func holds(_ claim: String, user: String, key: String, in db: any SQLConnection) throws -> Bool {
        try db.run("UPDATE idempotency SET claim = claim WHERE user_id = ?1 AND key = ?2 AND claim = ?3 AND status = 0",
                   [.text(user), .text(key), .text(claim)]) == 1
    }

    /// In the write's transaction: the claim becomes the answer to replay.
    static func record(_ claim: String, user: String, key: String, answer: RecordedAnswer, in db: any SQLConnection) throws {
        try db.run("""
            UPDATE idempotency SET status = ?4, etag = ?5, body = ?6, claim = NULL, lease_until = NULL
            WHERE user_id = ?1 AND key = ?2 AND claim = ?3
            """, [.text(user), .text(key), .text(claim), .integer(Int64(answer.status)), SQLValue(answer.etag),
                  bodyValue(answer.body)])
    }

    /// Forgets answers past their retention (in a write transaction, once per request).
    static func prune(at now: Double, in db: any SQLConnection) throws {
        try db.run("DELETE FROM idempotency WHERE created_at < ?1 AND status <> 0", [.real(now - retention)])
    }

    /// Gives the key back after a write failed without an outcome, so that a
    /// retry need not wait for the lease.
    static func release(_ claim: String, user: String, key: String, in db: any SQLConnection) throws {
        try db.run("DELETE FROM idempotency WHERE user_id = ?1 AND key = ?2 AND claim = ?3 AND status = 0",
                   [.text(user), .text(key), .text(claim)])
    }

    /// A zero-length blob binds as NULL in SQLite; the empty body is stored as empty text.
    private static func bodyValue(_ body: [UInt8]) -> SQLValue {
        body.isEmpty ? .text("") : .blob(body)
    }

    /// What makes two requests "the same": method, path and body.
    static func requestHash(method: String, path: String, body: [UInt8]) -> String {
        Crypto.sha256Hex(Array("\(method) \(path)\n".utf8) + body)
    }

    /// A key is 1 to 255 visible ASCII characters.
    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 255 && key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
