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

    /// A v1 request's claim, in a transaction of its own before its write,
    /// held for the request (`KeyClaimHolder.Scope.request`; the caller
    /// calls `KeyClaimHolder.letGo` on the same connection when the request
    /// is over). One round trip on PostgreSQL; a key whose answer is past
    /// its retention, or whose claim was abandoned, is taken over in a
    /// second transaction, which looks at the key again.
    static func claimForRequest(user: String, key: String, requestHash: String, at now: Double,
                                in db: any SQLConnection) throws -> Claim {
        let claim = KeyClaimHolder.newClaim(for: .request, in: db)
        let request = [Request(key: key, requestHash: requestHash, claim: claim)]
        let first = try db.transaction { try attempt(request, user: user, holding: .request, at: now, in: db) }
        let decision = try first.decide(0, at: now)
        guard case .takeOver = decision else { return decision.claim }
        return try db.transaction {
            let again = try attempt(request, user: user, holding: .request, at: now, in: db)
            let decision = try again.decide(0, at: now)
            guard case .takeOver = decision else { return decision.claim }
            return try takeOver(request[0], user: user, at: now, in: db)
        }
    }

    /// A key to claim: the request's hash, and the claim id it is claimed under.
    struct Request {
        let key: String
        let requestHash: String
        let claim: String
    }

    /// The first step of claiming keys, all at once (a batch's, or one):
    /// each key's lock taken (PostgreSQL) and, where the key is free and
    /// new, its claim row inserted; then the rows of the keys not claimed
    /// so, locked (`FOR UPDATE`), for `decide`. On PostgreSQL two statements
    /// whatever the count, sent with the transaction's next round trip
    /// (`SQLConnection.send`); the row is read by the second, after the
    /// lock is held, so that it is the row as the last holder left it.
    static func attempt(_ requests: [Request], user: String, holding scope: KeyClaimHolder.Scope, at now: Double,
                        in db: any SQLConnection) throws -> Attempts {
        guard !requests.isEmpty else { return Attempts(requests: [], dialect: db.dialect, flags: SQLAnswer(rows: []), rows: SQLAnswer(rows: [])) }
        switch db.dialect {
        case .postgresql:
            let keys = SQLValue.postgresArray(requests.map(\.key)), claims = SQLValue.postgresArray(requests.map(\.claim))
            let flags = try db.send("""
                WITH attempt AS MATERIALIZED (
                    SELECT u.key, u.request_hash, u.claim, u.n, \(KeyClaimHolder.tryHold(for: scope, named: "?2::text || u.key")) AS free
                    FROM unnest(?3::text[], ?4::text[], ?5::text[]) WITH ORDINALITY AS u(key, request_hash, claim, n)
                ), inserted AS (
                    INSERT INTO idempotency (user_id, key, request_hash, status, etag, body, created_at, claim, lease_until)
                    SELECT ?1::text, key, request_hash, 0, NULL, '', ?6::double precision, claim, NULL FROM attempt WHERE free
                    ON CONFLICT (user_id, key) DO NOTHING RETURNING key
                )
                SELECT a.free, i.key IS NOT NULL AS inserted FROM attempt a LEFT JOIN inserted i ON i.key = a.key ORDER BY a.n
                """, [.text(user), .text(KeyClaimHolder.lockNamePrefix(user: user)), keys,
                      .postgresArray(requests.map(\.requestHash)), claims, .real(now)])
            let rows = try db.send("""
                SELECT key, request_hash, status, etag, body, created_at, claim FROM idempotency
                WHERE user_id = ?1 AND key = ANY(?2::text[]) AND NOT (COALESCE(claim, '') = ANY(?3::text[])) FOR UPDATE
                """, [.text(user), keys, claims])
            return Attempts(requests: requests, dialect: db.dialect, flags: flags, rows: rows)
        case .sqlite:
            // One writer at a time (`BEGIN IMMEDIATE`): no lock to take, and no round trips to save.
            var flags: [Row] = [], rows: [Row] = []
            for request in requests {
                let inserted = try db.run("""
                    INSERT INTO idempotency (user_id, key, request_hash, status, etag, body, created_at, claim, lease_until)
                    VALUES (?1, ?2, ?3, 0, NULL, ?4, ?5, ?6, NULL) ON CONFLICT (user_id, key) DO NOTHING
                    """, [.text(user), .text(request.key), .text(request.requestHash), bodyValue([]), .real(now), .text(request.claim)]) == 1
                flags.append(Row(columns: ["free", "inserted"], values: [.integer(1), .integer(inserted ? 1 : 0)]))
                if !inserted {
                    rows += try db.query("""
                        SELECT key, request_hash, status, etag, body, created_at, claim FROM idempotency
                        WHERE user_id = ?1 AND key = ?2
                        """, [.text(user), .text(request.key)])
                }
            }
            return Attempts(requests: requests, dialect: db.dialect, flags: SQLAnswer(rows: flags), rows: SQLAnswer(rows: rows))
        }
    }

    /// What a claim's attempt found for each key, decided once its answers have come.
    struct Attempts {
        let requests: [Request]
        let dialect: SQLDialect
        fileprivate let flags: SQLAnswer
        fileprivate let rows: SQLAnswer

        /// The claim of `requests[index]`: the key is ours if its claim row
        /// was inserted; otherwise its row says whether to replay it, refuse
        /// it (in flight, or reused with another request), or take it over.
        func decide(_ index: Int, at now: Double) throws -> Decision {
            let request = requests[index]
            let flag = try flags.rows()[index]
            if flag["inserted"].integer == 1 { return .claim(.claimed(request.claim)) }
            let keyIsFree = flag["free"].integer == 1
            guard let row = try rows.rows().first(where: { $0["key"].text == request.key }) else {
                return .claim(.inFlight)  // not written yet by the live holder, or deleted meanwhile: the client's retry settles it
            }
            let sameRequest = row["request_hash"].text == request.requestHash
            let expired = (row["created_at"].real ?? 0) < now - retention
            if !expired {
                let status = Int(row["status"].integer ?? 0)
                if status != 0 {
                    guard sameRequest else { return .claim(.keyReusedWithAnotherRequest) }
                    return .claim(.replay(RecordedAnswer(requestHash: request.requestHash, status: status,
                                                         etag: row["etag"].text, body: row["body"].blob ?? [])))
                }
                if !keyIsFree || !KeyClaimHolder.isAbandoned(row["claim"].text, in: dialect) {
                    return .claim(sameRequest ? .inFlight : .keyReusedWithAnotherRequest)
                }
            }
            guard keyIsFree else { return .claim(.inFlight) }
            return .takeOver
        }
    }

    enum Decision {
        case claim(Claim)
        /// An answer past its retention, or a claim whose request is gone:
        /// the key is free, and `takeOver` makes it ours.
        case takeOver

        var claim: Claim {
            if case .claim(let claim) = self { return claim }
            return .inFlight
        }
    }

    /// Makes a key whose attempt decided `.takeOver` the request's, in the
    /// same transaction as the attempt (its row is locked since).
    static func takeOver(_ request: Request, user: String, at now: Double, in db: any SQLConnection) throws -> Claim {
        try db.send("""
            UPDATE idempotency SET request_hash = ?3, status = 0, etag = NULL, body = ?4, created_at = ?5,
                claim = ?6, lease_until = NULL
            WHERE user_id = ?1 AND key = ?2
            """, [.text(user), .text(request.key), .text(request.requestHash), bodyValue([]), .real(now), .text(request.claim)])
        return .claimed(request.claim)
    }

    /// In the write's transaction: whether the claim is still ours (a
    /// request whose connection was lost and made again holds no lock any
    /// more, and may have been taken over). In PostgreSQL the UPDATE also
    /// locks the row, so nobody can take the claim over before this
    /// transaction ends.
    /// Sent (`SQLConnection.send`): the answer has a row when it holds.
    static func holds(_ claim: String, user: String, key: String, in db: any SQLConnection) throws -> SQLAnswer {
        try db.send("UPDATE idempotency SET claim = claim WHERE user_id = ?1 AND key = ?2 AND claim = ?3 AND status = 0 RETURNING 1",
                    [.text(user), .text(key), .text(claim)])
    }

    /// In the write's transaction: the claim becomes the answer to replay.
    static func record(_ claim: String, user: String, key: String, answer: RecordedAnswer, in db: any SQLConnection) throws {
        try db.send("""
            UPDATE idempotency SET status = ?4, etag = ?5, body = ?6, claim = NULL, lease_until = NULL
            WHERE user_id = ?1 AND key = ?2 AND claim = ?3
            """, [.text(user), .text(key), .text(claim), .integer(Int64(answer.status)), SQLValue(answer.etag),
                  bodyValue(answer.body)])
    }

    /// Forgets answers past their retention (in a write transaction, once per request).
    static func prune(at now: Double, in db: any SQLConnection) throws {
        try db.send("DELETE FROM idempotency WHERE created_at < ?1 AND status <> 0", [.real(now - retention)])
    }

    /// Gives the key back after a write failed without an outcome (or was
    /// refused), so that no claim row outlives its request.
    static func release(_ claim: String, user: String, key: String, in db: any SQLConnection) throws {
        try db.send("DELETE FROM idempotency WHERE user_id = ?1 AND key = ?2 AND claim = ?3 AND status = 0",
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
