import LibJSON
import LibStore

/// The full-text index `lib search` reads (tables: LibraryIndexSchema),
/// kept by the cache's own writes: `Cache.save` and `Cache.forget` call it
/// in the transaction that changes the documents, so the two never
/// disagree. (Code rather than triggers keeps it: a trigger is parsed at
/// every open of the store, which `lib get --offline` and `lib edit` would
/// pay.)
///
/// Each call is one statement over all the paths it is given: FTS5 writes
/// what it holds in memory to disk at every statement or savepoint that
/// starts, so indexing a pulled page of 1,000 books a statement each made
/// 1,000 small segments to merge (a first pull of 10,000 books spent 42% of
/// its instructions there).
struct LibraryIndex {
    let db: Database

    /// Only books are indexed.
    static func indexes(_ path: String) -> Bool { path.hasPrefix(LibrarySearch.collectionPrefix) }

    /// Indexes the documents cached at `paths` (again, when they changed).
    func update(_ paths: [String]) throws {
        guard let paths = Self.jsonArray(of: paths) else { return }
        try db.run(cached: """
            INSERT INTO library_index_rows (path, docid)
                SELECT value, (SELECT COALESCE(MAX(docid), 0) FROM library_index_rows) + row_number() OVER ()
                FROM (SELECT DISTINCT value FROM json_each(?1)) WHERE value NOT IN (SELECT path FROM library_index_rows)
            """, [.text(paths)])
        try removeFromIndex(paths)
        try db.run(cached: """
            INSERT INTO library_index (rowid, path, title, author, tags)
                SELECT r.docid, d.path, \(LibraryIndexSchema.columns("d.body"))
                FROM documents d JOIN library_index_rows r ON r.path = d.path
                WHERE d.path IN (SELECT value FROM json_each(?1))
            """, [.text(paths)])
    }

    /// Takes the documents at `paths` out of the index.
    func remove(_ paths: [String]) throws {
        guard let paths = Self.jsonArray(of: paths) else { return }
        try removeFromIndex(paths)
        try db.run(cached: "DELETE FROM library_index_rows WHERE path IN (SELECT value FROM json_each(?1))", [.text(paths)])
    }

    private func removeFromIndex(_ paths: String) throws {
        try db.run(cached: """
            DELETE FROM library_index WHERE rowid IN
                (SELECT docid FROM library_index_rows WHERE path IN (SELECT value FROM json_each(?1)))
            """, [.text(paths)])
    }

    /// The indexed ones of `paths` as a JSON array (what json_each reads), nil for none.
    private static func jsonArray(of paths: [String]) -> String? {
        let indexed = paths.filter(indexes)
        return indexed.isEmpty ? nil : JSONValue.array(indexed.map { .string($0) }).serialized()
    }
}
