import LibStore
import LibBase

/// The book schema the account's server last served (`GET /v1/schemas/book`),
/// kept in the account's store so that edits are checked against the
/// server's own rules, offline too.
public struct StoredBookSchema: Sendable, Equatable {
    public let text: String
    public let etag: String?
    /// When the server last sent it or said it was current (unix seconds).
    public let checkedAt: UnixSeconds
}

extension Cache {
    public func bookSchema() throws -> StoredBookSchema? {
        var values: [String: String] = [:]
        for row in try db.query("SELECT key, value FROM meta WHERE key IN ('book_schema', 'book_schema_etag', 'book_schema_checked_at')") {
            if let key = row["key"].text, let value = row["value"].text { values[key] = value }
        }
        guard let text = values["book_schema"] else { return nil }
        return StoredBookSchema(text: text, etag: values["book_schema_etag"],
                                checkedAt: values["book_schema_checked_at"].flatMap(Double.init) ?? 0)
    }

    /// A 200: the schema as the server sent it.
    public func saveBookSchema(text: String, etag: String?, at date: UnixSeconds) throws {
        try db.write { db in
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('book_schema', ?1)", [.text(text)])
            if let etag {
                try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('book_schema_etag', ?1)", [.text(etag)])
            } else {
                try db.run("DELETE FROM meta WHERE key = 'book_schema_etag'")
            }
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('book_schema_checked_at', ?1)", [.text(String(date))])
        }
    }

    /// A 304: the stored schema is current.
    public func markBookSchemaChecked(at date: UnixSeconds) throws {
        try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('book_schema_checked_at', ?1)", [.text(String(date))])
    }
}
