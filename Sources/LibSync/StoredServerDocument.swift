import LibBase
import LibStore

/// A document the account's server served, kept in the account's store
/// (its `meta` table) with its ETag and when the server last sent it or said
/// it was current: the book schema (`GET /v1/schemas/book`), so that edits
/// are checked against the server's own rules, offline too; the protocol
/// it speaks (`GET /v2/capabilities`, LibClient's `ServerCapabilities.stored`
/// form), so that a push asks once a day, not once a push.
public struct StoredServerDocument: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case bookSchema = "book_schema"
        case serverProtocol = "server_protocol"
    }

    public let text: String
    public let etag: String?
    /// Unix seconds.
    public let checkedAt: UnixSeconds
}

extension Cache {
    public func serverDocument(_ kind: StoredServerDocument.Kind) throws -> StoredServerDocument? {
        let key = kind.rawValue
        var values: [String: String] = [:]
        for row in try db.query("SELECT key, value FROM meta WHERE key IN (?1, ?1 || '_etag', ?1 || '_checked_at')", [.text(key)]) {
            if let name = row["key"].text, let value = row["value"].text { values[name] = value }
        }
        guard let text = values[key] else { return nil }
        return StoredServerDocument(text: text, etag: values[key + "_etag"], checkedAt: values[key + "_checked_at"].flatMap(Double.init) ?? 0)
    }

    /// What the server sent (a 200), in place of what was kept.
    public func saveServerDocument(_ kind: StoredServerDocument.Kind, text: String, etag: String? = nil, at date: UnixSeconds) throws {
        let key = kind.rawValue
        try db.write { db in
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [.text(key), .text(text)])
            if let etag {
                try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1 || '_etag', ?2)", [.text(key), .text(etag)])
            } else {
                try db.run("DELETE FROM meta WHERE key = ?1 || '_etag'", [.text(key)])
            }
            try markServerDocumentChecked(kind, at: date, in: db)
        }
    }

    /// The server said the kept document is current (a 304).
    public func markServerDocumentChecked(_ kind: StoredServerDocument.Kind, at date: UnixSeconds) throws {
        try markServerDocumentChecked(kind, at: date, in: db)
    }

    /// The server no longer answers as it said: ask again next time.
    public func forgetServerDocument(_ kind: StoredServerDocument.Kind) throws {
        try db.run("DELETE FROM meta WHERE key IN (?1, ?1 || '_etag', ?1 || '_checked_at')", [.text(kind.rawValue)])
    }

    private func markServerDocumentChecked(_ kind: StoredServerDocument.Kind, at date: UnixSeconds, in db: Database) throws {
        try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1 || '_checked_at', ?2)", [.text(kind.rawValue), .text(String(date))])
    }
}
