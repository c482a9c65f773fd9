import LibStore

/// The full-text index `lib search` reads (tables: LibraryIndexSchema),
/// kept by the cache's own writes: `Cache.save` and `Cache.forget` call it
/// in the transaction that changes the document, so the two never disagree.
/// (Code rather than triggers keeps it: a trigger is parsed at every open of
/// the store, which `lib get --offline` and `lib edit` would pay.)
struct LibraryIndex {
    let db: Database

    /// Only books are indexed.
    static func indexes(_ path: String) -> Bool { path.hasPrefix(LibrarySearch.collectionPrefix) }

    /// Indexes the document cached at `path` (again, when it changed).
    func update(_ path: String) throws {
        guard Self.indexes(path) else { return }
        try db.run(cached: """
            INSERT INTO library_index_rows (path, docid)
                VALUES (?1, (SELECT COALESCE(MAX(docid), 0) + 1 FROM library_index_rows))
                ON CONFLICT (path) DO NOTHING
            """, [.text(path)])
        try db.run(cached: "DELETE FROM library_index WHERE rowid = (SELECT docid FROM library_index_rows WHERE path = ?1)",
                   [.text(path)])
        try db.run(cached: """
            INSERT INTO library_index (rowid, path, title, author, tags)
                SELECT r.docid, d.path, \(LibraryIndexSchema.columns("d.body"))
                FROM documents d JOIN library_index_rows r ON r.path = d.path WHERE d.path = ?1
            """, [.text(path)])
    }

    /// Takes the document at `path` out of the index.
    func remove(_ path: String) throws {
        guard Self.indexes(path) else { return }
        try db.run(cached: "DELETE FROM library_index WHERE rowid = (SELECT docid FROM library_index_rows WHERE path = ?1)",
                   [.text(path)])
        try db.run(cached: "DELETE FROM library_index_rows WHERE path = ?1", [.text(path)])
    }
}
