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
/// 0 and a claim id), in a transaction of its own (v1) or in the write's
/// own (a batch); then, in the write's transaction, checks that the claim
/// is still its own, applies the write and turns the claim into the
/// recorded answer. So the first committed outcome is the one kept, and a
/// request whose key is claimed by a write in flight (in this process or
/// another) gets 409. A claim lives as long as the request that made it
/// (`KeyClaimHolder`): a server or database connection that dies mid-write
/// leaves a claim the next retry takes over at once.
enum IdempotencyLedger {
    static let retention: TimeInterval = 24 * 3600

    enum Claim {
        /// The key is ours under this claim id: go on and write.
        case claimed(String)
        case replay(RecordedAnswer)
        case keyReusedWithAnotherRequest
        case inFlight
    }

    /// Claims the key for a request, unless it has an answer or a live
    /// claim. In a write transaction; with `.request`, the caller calls
    /// `KeyClaimHolder.letGo` on the same connection when the request is over.
    static func claim(user: String, key: String, requestHash: String, holding scope: KeyClaimHolder.Scope,
                      at now: Double, in db: any SQLConnection) throws -> Claim {
        let keyIsFree = try KeyClaimHolder.tryHold(user: user, key: key, for: scope, in: db)
        let claim = KeyClaimHolder.newClaim(for: scope, in: db)
        if keyIsFree, try db.run("""
            INSERT INTO idempotency (user_id, key, request_hash, status, etag, body, created_at, claim, lease_until)
            VALUES (?1, ?2, ?3, 0, NULL, ?4, ?5, ?6, NULL) ON CONFLICT (user_id, key) DO NOTHING
            """, [.text(user), .text(key), .text(requestHash), bodyValue([]), .real(now), .text(claim)]) == 1 {
            return .claimed(claim)
        }
        guard let row = try db.query("""
            SELECT request_hash, status, etag, body, created_at, claim FROM idempotency
            WHERE user_id = ?1 AND key = ?2
            """ + db.forUpdate, [.text(user), .text(key)]).first else {
            return .inFlight  // not written yet by the live holder, or deleted meanwhile: the client's retry settles it
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
            if !keyIsFree || !KeyClaimHolder.isAbandoned(row["claim"].text, in: db) {
                return sameRequest ? .inFlight : .keyReusedWithAnotherRequest
            }
        }
        guard keyIsFree else { return .inFlight }
        // An answer past its retention, or a claim whose request is gone: take the key over.
        try db.run("""
            UPDATE idempotency SET request_hash = ?3, status = 0, etag = NULL, body = ?4, created_at = ?5,
                claim = ?6, lease_until = NULL
            WHERE user_id = ?1 AND key = ?2
            """, [.text(user), .text(key), .text(requestHash), bodyValue([]), .real(now), .text(claim)])
        return .claimed(claim)
    }

    /// In the write's transaction: whether the claim is still ours (a
    /// request whose connection was lost and made again holds no lock any
    /// more, and may have been taken over). In PostgreSQL the UPDATE also
    /// locks the row, so nobody can take the claim over before this
    /// transaction ends.
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

    /// Gives the key back after a write failed without an outcome (or was
    /// refused), so that no claim row outlives its request.
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
