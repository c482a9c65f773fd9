import LibJSON
import LibStore

/// The full-text index `lib search` reads (tables: LibraryIndexSchema),
/// kept by the cache's own writes: `Cache.save` and `Cache.forget` (and
/// `settle`, through them) call it in the transaction that changes the
/// documents, so the two never disagree. (Code rather than triggers keeps
/// it: a trigger is parsed at every open of the store, which `lib get
/// --offline` and `lib edit` would pay.)
///
/// Each call is one statement over all the paths it is given: FTS5 writes
/// what it holds in memory to disk at every statement journal or savepoint
/// that begins, so indexing a pulled page of 1,000 books a statement each
/// made 1,000 small segments to merge (a first pull of 10,000 books spent
/// 42% of its instructions there).
struct LibraryIndex {
    let db: Database

    /// Only books are indexed.
    static func indexes(_ path: String) -> Bool { path.hasPrefix(LibrarySearch.collectionPrefix) }

    /// Indexes `copies`, just cached (again, when they changed).
    func update(_ copies: [Cache.Copy]) throws {
        guard let books = Books(copies.map(\.path)) else { return }
        try LetterFolding.define(on: db)
        try db.run(cached: books.one ? """
            INSERT INTO library_index_rows (path, docid)
                VALUES (?1, (SELECT COALESCE(MAX(docid), 0) + 1 FROM library_index_rows)) ON CONFLICT (path) DO NOTHING
            """ : """
            INSERT INTO library_index_rows (path, docid)
                SELECT value, (SELECT COALESCE(MAX(docid), 0) FROM library_index_rows) + row_number() OVER ()
                FROM json_each(?1) WHERE value NOT IN (SELECT path FROM library_index_rows)
            """, [books.value])
        try db.run(cached: "DELETE FROM library_index WHERE \(books.rows)", [books.value])
        // One book with its body bound: an INSERT … SELECT into FTS5 costs
        // twice as much (a statement journal, so one more flush to disk).
        if books.one, let body = copies.first(where: { $0.path == books.paths[0] })?.body {
            try db.run(cached: Self.indexOne, [books.value, .text(body)])
        } else {
            try db.run(cached: books.one ? Self.indexCachedOne : Self.indexCachedMany, [books.value])
        }
    }

    private static let indexOne = """
        INSERT INTO library_index (rowid, path, title, author, tags)
            VALUES ((SELECT docid FROM library_index_rows WHERE path = ?1), ?1, \(LibraryIndexSchema.columnsFoldedByFunction("?2")))
        """
    private static let indexCachedOne = indexCached(Books.matchOne)
    private static let indexCachedMany = indexCached(Books.matchMany)
    private static func indexCached(_ match: String) -> String {
        """
        INSERT INTO library_index (rowid, path, title, author, tags)
            SELECT r.docid, d.path, \(LibraryIndexSchema.columnsFoldedByFunction("d.body"))
            FROM documents d JOIN library_index_rows r ON r.path = d.path WHERE d.path \(match)
        """
    }

    /// Indexes every cached book with a path after `low` up to `high`, again
    /// where indexed before: a listing's pages, some 10,000 books at a time
    /// (IndexLag). One statement each for the whole range: FTS5 then
    /// tokenizes into a few large segments instead of a small one a page,
    /// which it merged again and again.
    func update(after low: String, through high: String) throws {
        let range: [SQLValue] = [.text(low), .text(high)]
        try LetterFolding.define(on: db)
        // Rows indexed before (a re-listing, or a book got meanwhile) go first.
        try db.run(cached: """
            DELETE FROM library_index WHERE rowid IN (SELECT docid FROM library_index_rows WHERE path > ?1 AND path <= ?2)
            """, range)
        try db.run(cached: """
            INSERT INTO library_index_rows (path, docid)
                SELECT path, (SELECT COALESCE(MAX(docid), 0) FROM library_index_rows) + row_number() OVER (ORDER BY path)
                FROM documents d WHERE path > ?1 AND path <= ?2 AND substr(path, 1, 6) = 'books/'
                    AND NOT EXISTS (SELECT 1 FROM library_index_rows r WHERE r.path = d.path)
            """, range)
        try db.run(cached: """
            INSERT INTO library_index (rowid, path, title, author, tags)
                SELECT r.docid, d.path, \(LibraryIndexSchema.columnsFoldedByFunction("d.body"))
                FROM documents d JOIN library_index_rows r ON r.path = d.path WHERE d.path > ?1 AND d.path <= ?2
            """, range)
    }

    /// Indexes a listing's books from their fields as the read-ahead read
    /// them (`ListedIndexFields`), the same rows `update(after:through:)`
    /// makes from the stored JSON: one statement a book, none of which opens
    /// a statement journal, so FTS5 keeps them in memory and writes them at
    /// the commit as one segment, as it does one INSERT … SELECT.
    func update(_ rows: [(path: String, fields: BookIndexFields)]) throws {
        var docid = try db.scalar(cached: "SELECT COALESCE(MAX(docid), 0) FROM library_index_rows")?.integer ?? 0
        try db.withCachedStatement("INSERT INTO library_index_rows (path, docid) VALUES (?1, ?2) ON CONFLICT (path) DO NOTHING") { addRow in
            try db.withCachedStatement("INSERT INTO library_index (rowid, path, title, author, tags) VALUES (?1, ?2, ?3, ?4, ?5)") { index in
                for (path, fields) in rows where Self.indexes(path) {
                    try addRow.bind([.text(path), .integer(docid + 1)])
                    while try addRow.step() {}
                    var row = docid + 1
                    if db.changes == 1 {
                        docid += 1
                    } else {
                        // Indexed before (a listing again): its old entry goes first.
                        row = try db.scalar(cached: "SELECT docid FROM library_index_rows WHERE path = ?1", [.text(path)])?.integer ?? 0
                        try db.run(cached: "DELETE FROM library_index WHERE rowid = ?1", [.integer(row)])
                    }
                    try index.bind([.integer(row), .text(path), SQLValue(fields.title.map(LetterFolding.fold)),
                                    SQLValue(fields.author.map(LetterFolding.fold)), SQLValue(fields.tags.map(LetterFolding.fold))])
                    while try index.step() {}
                }
            }
        }
    }

    /// Takes the documents at `paths` out of the index.
    func remove(_ paths: [String]) throws {
        guard let books = Books(paths) else { return }
        try db.run(cached: "DELETE FROM library_index WHERE \(books.rows)", [books.value])
        try db.run(cached: "DELETE FROM library_index_rows WHERE path \(books.match)", [books.value])
    }

    /// The books among some paths, as statements name them: one by its
    /// path (a push's answer, a get), many through json_each (a pulled
    /// page), whose temporary tables one path would pay for nothing (a
    /// third of a pushed write's instructions).
    private struct Books {
        let paths: [String]
        let one: Bool
        /// What ?1 is bound to: the path, or the paths as a JSON array.
        let value: SQLValue
        /// The condition on a path column.
        let match: String
        /// The condition on the index's rowid.
        var rows: String { "rowid \(one ? "=" : "IN") (SELECT docid FROM library_index_rows WHERE path \(match))" }

        static let matchOne = "= ?1"
        static let matchMany = "IN (SELECT value FROM json_each(?1))"

        init?(_ paths: [String]) {
            var seen = Set<String>()
            self.paths = paths.filter { LibraryIndex.indexes($0) && seen.insert($0).inserted }
            guard !self.paths.isEmpty else { return nil }
            one = self.paths.count == 1
            value = .text(one ? self.paths[0] : JSONValue.array(self.paths.map { .string($0) }).serialized())
            match = one ? Self.matchOne : Self.matchMany
        }
    }
}
