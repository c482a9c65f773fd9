import LibJSON
import LibStore
import LibBase

/// The account's last known copy of each document and collection.
public struct Cache {
    let db: Database

    public func document(at path: String) throws -> CachedDocument? {
        let statement = try db.prepare("SELECT body, etag, fetched_at, validated_at FROM documents WHERE path = ?1")
        try statement.bind([.text(path)])
        guard try statement.step() else { return nil }
        return CachedDocument(path: path, body: statement.text(at: 0) ?? "", etag: statement.text(at: 1),
                              fetchedAt: statement.value(at: 2).real ?? 0,
                              validatedAt: statement.value(at: 3).real ?? 0)
    }

    /// A document as the server sent it.
    public typealias Copy = (path: String, body: String, etag: String?)

    /// Stores a fresh copy (a 200 answer), and indexes it for search in the same transaction.
    public func save(_ path: String, body: String, etag: String?, at date: UnixSeconds) throws {
        try save([(path, body, etag)], at: date)
    }

    /// Stores fresh copies, and indexes them for search, in one transaction
    /// (`indexing` false: a listing's page, which `LibraryMirror` indexes in
    /// larger steps, see `IndexLag`).
    public func save(_ copies: [Copy], at date: UnixSeconds, indexing: Bool = true) throws {
        try db.write { db in
            // One statement looked up for all the copies (a pulled page's 1,000):
            // finding a cached statement hashes its whole text.
            try db.withCachedStatement("""
                INSERT INTO documents (path, body, etag, fetched_at, validated_at) VALUES (?1, ?2, ?3, ?4, ?4)
                ON CONFLICT (path) DO UPDATE SET body = excluded.body, etag = excluded.etag,
                    fetched_at = excluded.fetched_at, validated_at = excluded.validated_at
                """) { statement in
                for copy in copies {
                    try statement.bind([.text(copy.path), .text(copy.body), SQLValue(copy.etag), .real(date)])
                    while try statement.step() {}
                }
            }
            if indexing { try LibraryIndex(db: db).update(copies) }
        }
    }

    /// What a write the server applied leaves in the cache: its document
    /// (nil: forgotten, the write deleted it).
    public typealias Settled = (path: String, body: String?, etag: String?)

    /// Settled writes in the order they were applied, the last of each
    /// path winning, cached and indexed together: a push records up to 128
    /// answers a transaction, and FTS5 writes its pending index to disk at
    /// each statement journal (the outbox's statements open one), so one
    /// write at a time cost each 100 k instructions more.
    public func settle(_ settled: [Settled], at date: UnixSeconds) throws {
        var seen = Set<String>(), fresh: [Copy] = [], gone: [String] = []
        for write in settled.reversed() where seen.insert(write.path).inserted {
            if let body = write.body { fresh.append((write.path, body, write.etag)) } else { gone.append(write.path) }
        }
        try db.write { db in
            try Cache(db: db).save(fresh, at: date)
            try Cache(db: db).forget(gone)
        }
    }

    /// The server said the copy is current (a 304 answer).
    public func markValidated(_ path: String, at date: UnixSeconds) throws {
        try db.run("UPDATE documents SET validated_at = ?2 WHERE path = ?1", [.text(path), .real(date)])
    }

    /// The server says there is no such document (a 404, or a delete went through).
    public func forget(_ path: String) throws {
        try forget([path])
    }

    /// Forgets documents, and takes them out of the search index, in one transaction.
    public func forget(_ paths: [String]) throws {
        try db.write { db in
            for path in paths { try db.run(cached: "DELETE FROM documents WHERE path = ?1", [.text(path)]) }
            try LibraryIndex(db: db).remove(paths)
        }
    }

    /// Stores a collection's member list and refreshes each member's entry.
    public func saveCollection(_ path: String, members: [Copy], at date: UnixSeconds) throws {
        try db.write { db in
            try Cache(db: db).save(members, at: date)
            try db.run("""
                INSERT INTO collections (path, members, fetched_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (path) DO UPDATE SET members = excluded.members, fetched_at = excluded.fetched_at
                """, [.text(path), .text(members.map(\.path).joined(separator: "\n")), .real(date)])
        }
    }

    /// A cached collection: when it was fetched and its members' cached copies, in order.
    /// A pulled collection (LibraryMirror) is every cached document under it,
    /// in path order (the server's byte order).
    public func collection(at path: String) throws -> (fetchedAt: UnixSeconds, members: [CachedDocument])? {
        guard let row = try db.query("SELECT members, fetched_at FROM collections WHERE path = ?1", [.text(path)]).first else {
            return nil
        }
        if try LibraryMirror(db: db, collection: path).isPulled {
            return (row["fetched_at"].real ?? 0, try documents(under: path + "/"))
        }
        let paths = (row["members"].text ?? "").split(separator: "\n").map(String.init)
        let members = try paths.compactMap { try document(at: $0) }
        return (row["fetched_at"].real ?? 0, members)
    }

    /// Every cached document whose path starts with `prefix`, in path order.
    func documents(under prefix: String) throws -> [CachedDocument] {
        try db.query("SELECT path, body, etag, fetched_at, validated_at FROM documents WHERE path >= ?1 AND path < ?2 ORDER BY path",
                     [.text(prefix), .text(prefix + "\u{10FFFF}")]).map { row in
            CachedDocument(path: row[0].text ?? "", body: row[1].text ?? "", etag: row[2].text,
                           fetchedAt: row[3].real ?? 0, validatedAt: row[4].real ?? 0)
        }
    }

    /// Every cached document whose path starts with `prefix`, in path order
    /// (byte order), one at a time: `lib export` writes a whole library
    /// without holding it in memory.
    public func forEachDocument(under prefix: String, _ body: (CachedDocument) throws -> Void) throws {
        let statement = try db.prepare(
            "SELECT path, body, etag, fetched_at, validated_at FROM documents WHERE path >= ?1 AND path < ?2 ORDER BY path")
        try statement.bind([.text(prefix), .text(prefix + "\u{10FFFF}")])
        while try statement.step() {
            try body(CachedDocument(path: statement.text(at: 0) ?? "", body: statement.text(at: 1) ?? "", etag: statement.text(at: 2),
                                    fetchedAt: statement.value(at: 3).real ?? 0, validatedAt: statement.value(at: 4).real ?? 0))
        }
    }

    /// How many documents are cached under `prefix` (`books/`).
    public func count(under prefix: String) throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM documents WHERE path >= ?1 AND path < ?2",
                          [.text(prefix), .text(prefix + "\u{10FFFF}")])?.integer ?? 0)
    }

    /// Cached document paths starting with `prefix`, for completion.
    public func paths(withPrefix prefix: String, limit: Int = 200) throws -> [String] {
        let upper = prefix + "\u{10FFFF}"
        return try db.query("SELECT path FROM documents WHERE path >= ?1 AND path < ?2 ORDER BY path LIMIT ?3",
                            [.text(prefix), .text(upper), .integer(Int64(limit))]).compactMap { $0[0].text }
    }

    public var count: Int { (try? db.scalar("SELECT count(*) FROM documents")?.integer).flatMap { $0.map(Int.init) } ?? 0 }
}
