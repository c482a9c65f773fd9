import LibJSON
import LibStore

/// The books a listing has cached but not yet indexed for search: a
/// listing's pages are stored without their index entries and indexed
/// together each `step` books and when the listing ends (or is dropped),
/// in the transaction of the page that reaches the step: FTS5 then makes a
/// few large segments instead of merging a small one a page again and
/// again (100,000 books: about a third less CPU than a page at a time,
/// as little as indexing them all once at the end). The lag is the range of paths after `low` up to `high` (the
/// listing is in path order), kept in `meta` with the pages, so a pull
/// killed at any point leaves it said; `lib search` reads the books in it
/// from their cached copies (LibrarySearch), so they are found all the
/// same, and the next pull's listing takes it over.
struct IndexLag: Sendable, Equatable {
    /// Paths after `low` up to `high` may be missing from the index, or indexed as they were before.
    var low: String
    var high: String
    /// Books stored in the range since it was last indexed.
    var books: Int

    /// Books a listing stores before it indexes them.
    static let step = 10_000

    func contains(_ path: String) -> Bool { path > low && path <= high }

    private static func key(_ collection: String) -> String { "index_lag:" + collection }

    /// The collection's lag, if a listing left one.
    static func read(_ collection: String, in db: Database) throws -> IndexLag? {
        guard let text = try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(key(collection))])?.text,
              let state = try? JSONParser.parse(text), let low = state["low"]?.stringValue, let high = state["high"]?.stringValue
        else { return nil }
        return IndexLag(low: low, high: high, books: Int(state["books"]?.integerValue ?? 0))
    }

    /// A listing's page stored unindexed: the paths after `low` up to
    /// `high`; indexes the lag once it holds `step` books. In the caller's transaction.
    /// `listed`: the fields of the books this process stored in the lag,
    /// which index it when they cover it.
    static func stored(_ books: Int, after low: String, through high: String, of collection: String,
                       listed: ListedIndexFields? = nil, in db: Database) throws {
        var lag = try read(collection, in: db) ?? IndexLag(low: low, high: high, books: 0)
        lag.low = min(lag.low, low)
        lag.high = max(lag.high, high)
        lag.books += books
        if lag.books >= step {
            try lag.index(listed, in: db)
            try db.run(cached: "DELETE FROM meta WHERE key = ?1", [.text(key(collection))])
            return
        }
        var state = JSONObject()
        state["low"] = .string(lag.low)
        state["high"] = .string(lag.high)
        state["books"] = .integer(Int64(lag.books))
        try db.run(cached: "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                   [.text(key(collection)), .text(JSONValue.object(state).serialized())])
    }

    /// Indexes what lags, if anything, and forgets the lag. In the caller's transaction.
    static func catchUp(_ collection: String, listed: ListedIndexFields? = nil, in db: Database) throws {
        guard let lag = try read(collection, in: db) else { return }
        try lag.index(listed, in: db)
        try db.run(cached: "DELETE FROM meta WHERE key = ?1", [.text(key(collection))])
    }

    /// Indexes the range: from `listed` when it holds every book of it, else from the stored JSON.
    private func index(_ listed: ListedIndexFields?, in db: Database) throws {
        if let listed, listed.cover(self) {
            try LibraryIndex(db: db).update(listed.rows)
        } else {
            try LibraryIndex(db: db).update(after: low, through: high)
        }
        listed?.reset()
    }

    /// The cached documents in the range, in path order.
    func documents(in db: Database) throws -> [CachedDocument] {
        try db.query("SELECT path, body, etag, fetched_at, validated_at FROM documents WHERE path > ?1 AND path <= ?2 ORDER BY path",
                     [.text(low), .text(high)]).map { row in
            CachedDocument(path: row[0].text ?? "", body: row[1].text ?? "", etag: row[2].text,
                           fetchedAt: row[3].real ?? 0, validatedAt: row[4].real ?? 0)
        }
    }
}
