import Foundation
import LibStore

/// The answer recorded for an idempotency key, replayed for a retry.
struct RecordedAnswer: Sendable {
    let requestHash: String
    let status: Int
    let etag: String?
    let body: [UInt8]
}

/// Idempotency keys, scoped per user and kept 24 hours: the first request
/// with a key is applied and its answer recorded in the same transaction;
/// a retry with the same key and body gets that answer again, applied once.
enum IdempotencyLedger {
    static let retention: TimeInterval = 24 * 3600

    static func recorded(user: String, key: String, in db: Database) throws -> RecordedAnswer? {
        guard let row = try db.query("""
            SELECT request_hash, status, etag, body FROM idempotency
            WHERE user_id = ?1 AND key = ?2 AND created_at >= ?3
            """, [.text(user), .text(key), .real(Date().timeIntervalSince1970 - retention)]).first else { return nil }
        return RecordedAnswer(requestHash: row["request_hash"].text ?? "", status: Int(row["status"].integer ?? 0),
                              etag: row["etag"].text, body: row["body"].blob ?? [])
    }

    static func record(user: String, key: String, answer: RecordedAnswer, in db: Database) throws {
        let now = Date().timeIntervalSince1970
        try db.run("DELETE FROM idempotency WHERE created_at < ?1", [.real(now - retention)])
        try db.run("""
            INSERT OR REPLACE INTO idempotency (user_id, key, request_hash, status, etag, body, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """, [.text(user), .text(key), .text(answer.requestHash), .integer(Int64(answer.status)),
                  SQLValue(answer.etag), .blob(answer.body), .real(now)])
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
