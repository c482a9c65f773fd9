import Foundation
import LibJSON
import LibStore

/// A book's current state: its document (nil once deleted), version and ETag.
struct BookRecord: Sendable {
    let id: String
    let version: Int64
    let etag: String
    let document: JSONObject?

    var exists: Bool { document != nil }
}

/// Books, their versions and who wrote each one. Every change bumps the
/// version, makes a new ETag and appends to the history, in the caller's
/// transaction.
enum BookStore {
    static func record(_ id: String, in db: any SQLConnection) throws -> BookRecord? {
        guard let row = try db.query("SELECT id, version, etag, document FROM books WHERE id = ?1", [.text(id)]).first else {
            return nil
        }
        return try bookRecord(from: row)
    }

    /// The books a write transaction changes, read together once their
    /// locks are held: on PostgreSQL one statement, sent with the
    /// transaction's next round trip (`SQLConnection.send`). A book with no
    /// row is not in the answer.
    static func records(_ ids: [String], in db: any SQLConnection) throws -> () throws -> [String: BookRecord] {
        let answer: SQLAnswer
        switch db.dialect {
        case .postgresql:
            answer = try db.send("SELECT id, version, etag, document FROM books WHERE id = ANY(?1::text[])", [.postgresArray(ids)])
        case .sqlite:
            answer = SQLAnswer(rows: try ids.flatMap { try db.query("SELECT id, version, etag, document FROM books WHERE id = ?1", [.text($0)]) })
        }
        return {
            let books = try answer.rows().map(bookRecord(from:))
            return Dictionary(books.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A live book's ETag and its document as stored (the serialized JSON
    /// the answer sends as it is), or nil.
    static func storedDocument(_ id: String, in db: any SQLConnection) throws -> (etag: String, json: String)? {
        guard let row = try db.query("SELECT etag, document FROM books WHERE id = ?1 AND document IS NOT NULL",
                                     [.text(id)]).first,
              let etag = row[0].text, let json = row[1].text else { return nil }
        return (etag, json)
    }

    /// Up to `limit` live books with ids after `after`, in id order, and the
    /// id to continue after when there are more.
    /// One book of a listing page, as stored: its document's JSON text is
    /// sent as it is, never parsed again.
    struct ListedBook {
        let id: String
        let etag: String
        let json: String
    }

    /// Up to `limit` books after `after`, in id order, and at most about
    /// `maxBytes` of documents (always at least one book): the page ends
    /// early, with `next`, rather than hold a thousand large books at once.
    /// The sizes are read first, so that only the page's documents are loaded.
    static func list(after: String?, limit: Int, maxBytes: Int, in db: any SQLConnection) throws -> (items: [ListedBook], next: String?) {
        let sizes = try db.query("""
            SELECT id, \(PageBudget.byteLength("document", db.dialect)) FROM books
            WHERE document IS NOT NULL AND id > ?1 ORDER BY id LIMIT ?2
            """, [.text(after ?? ""), .integer(Int64(limit + 1))])
        let count = PageBudget.rowsThatFit(sizes, limit: limit, maxBytes: maxBytes)
        guard count > 0, let last = sizes[count - 1][0].text else { return ([], nil) }
        let rows = try db.query("""
            SELECT id, etag, document FROM books
            WHERE document IS NOT NULL AND id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3
            """, [.text(after ?? ""), .text(last), .integer(Int64(count))])
        let items = rows.compactMap { row -> ListedBook? in
            guard let id = row[0].text, let document = row[2].text else { return nil }
            return ListedBook(id: id, etag: row[1].text ?? "", json: document)
        }
        return (items, sizes.count > count ? last : nil)
    }

    /// How many books exist (deletions not counted).
    static func liveCount(in db: any SQLConnection) throws -> Int64 {
        try db.scalar("SELECT count(*) FROM books WHERE document IS NOT NULL")?.integer ?? 0
    }

    /// Writes a new version (a document, or nil to delete) over `previous`,
    /// the book's row as the caller read it in this transaction (nil: none),
    /// and records who wrote it. The caller puts the change in the feed
    /// (`ChangeLog.record`) just before it commits.
    static func write(_ id: String, document: JSONObject?, over previous: BookRecord?, by userID: String, at now: Double,
                      in db: any SQLConnection) throws -> BookRecord {
        let version = (previous?.version ?? 0) + 1
        let etag = "\"\(version)-\(Crypto.randomHex(bytes: 4))\""
        let text = document.map { JSONValue.object($0).serialized() }
        try db.send("""
            INSERT INTO books (id, version, etag, document) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (id) DO UPDATE SET version = excluded.version, etag = excluded.etag, document = excluded.document
            """, [.text(id), .integer(version), .text(etag), SQLValue(text)])
        try db.send("INSERT INTO history (book_id, version, etag, updated_by, at, document) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                   [.text(id), .integer(version), .text(etag), .text(userID), .text(Timestamp.string(from: Date(timeIntervalSince1970: now))), SQLValue(text)])
        return BookRecord(id: id, version: version, etag: etag, document: document)
    }

    static func history(_ id: String, in db: any SQLConnection) throws -> [JSONValue] {
        // The writer's user name beside the id, for a history a person reads;
        // null for a writer that is not a user (the demo data's `demo`).
        try db.query("""
            SELECT history.version, history.etag, history.updated_by, users.username AS updated_by_name, history.at,
                history.document
            FROM history LEFT JOIN users ON users.id = history.updated_by
            WHERE history.book_id = ?1 ORDER BY history.version
            """, [.text(id)]).map { row in
            let document: JSONValue = try row["document"].text.map { try JSONParser.parse($0) } ?? .null
            return [
                "version": .integer(row["version"].integer ?? 0),
                "etag": .string(row["etag"].text ?? ""),
                "updated_by": .string(row["updated_by"].text ?? ""),
                "updated_by_name": row["updated_by_name"].text.map { .string($0) } ?? .null,
                "at": .string(row["at"].text ?? ""),
                "document": document,
            ]
        }
    }

    private static func bookRecord(from row: Row) throws -> BookRecord {
        let document = try row["document"].text.map { text -> JSONObject in
            guard let object = try JSONParser.parse(text).objectValue else {
                throw DatabaseError(extendedCode: 11, message: "stored book is not an object", path: nil)
            }
            return object
        }
        return BookRecord(id: row["id"].text ?? "", version: row["version"].integer ?? 0,
                          etag: row["etag"].text ?? "", document: document)
    }
}

/// RFC 3339 timestamps in UTC, as the history shows them.
enum Timestamp {
    static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, millis)
    }
}
