import LibBase
import LibStore

/// The account's offline copy of a whole collection (`lib pull`): a full
/// listing replaces it, the change feed's pages bring it up to date, and the
/// feed's cursor is stored in the same transaction as what it covers, so a
/// pull killed half-way starts again from what was committed. Only the
/// cache changes: the outbox's writes stay on top of it (LocalVersion).
public struct LibraryMirror {
    /// One change from the feed: the book's path, and its document and
    /// ETag as they are now (nil body: deleted on the server).
    public struct Change: Sendable, Equatable {
        public let path: String
        public let body: String?
        public let etag: String

        public init(path: String, body: String?, etag: String) {
            self.path = path
            self.body = body
            self.etag = etag
        }
    }

    let db: Database
    /// `books`
    public let collection: String

    public init(db: Database, collection: String) {
        self.db = db
        self.collection = collection
    }

    private var cursorKey: String { "changes_cursor:" + collection }

    /// Where the feed was last read up to; nil: never listed (or listed by
    /// an older release), so the next pull lists everything.
    public func cursor() throws -> String? {
        try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(cursorKey)])?.text
    }

    /// Whether the collection was pulled: then its members are every cached
    /// document under it (`Cache.collection(at:)`), and no member list is kept.
    var isPulled: Bool {
        get throws { try cursor() != nil }
    }

    /// A complete listing taken after the feed's cursor `cursor` (nil: a
    /// server without a feed): the collection becomes exactly these members
    /// (cached books the server no longer lists are forgotten), all in one
    /// transaction.
    public func replace(with members: [Cache.Copy], cursor: String?, at date: UnixSeconds) throws {
        try db.write { db in
            let cache = Cache(db: db)
            let listed = Set(members.map(\.path))
            let prefix = collection + "/"
            try cache.forget(try cache.paths(withPrefix: prefix, limit: Int.max).filter { !listed.contains($0) })
            try cache.save(members, at: date)
            // With a cursor the members are the cached documents under the
            // collection (the list is kept for when there is none).
            try Self.saveMembers(members.map(\.path).sorted(by: Self.serverOrder), of: collection, at: date, in: db)
            if let cursor {
                try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [.text(cursorKey), .text(cursor)])
            } else {
                try db.run("DELETE FROM meta WHERE key = ?1", [.text(cursorKey)])
            }
        }
    }

    /// One page of the feed, and the cursor after it, in one transaction.
    /// Unchanged copies (same ETag) are only marked current.
    public func apply(_ changes: [Change], cursor: String, at date: UnixSeconds) throws {
        try db.write { db in
            let cache = Cache(db: db)
            var fresh: [Cache.Copy] = [], gone: [String] = []
            for change in changes {
                if let body = change.body {
                    if try cache.document(at: change.path)?.etag == change.etag {
                        try cache.markValidated(change.path, at: date)
                    } else {
                        fresh.append((change.path, body, change.etag))
                    }
                } else {
                    gone.append(change.path)
                }
            }
            // A page names each book once (its latest change), so the order
            // between saving and forgetting does not matter.
            try cache.save(fresh, at: date)
            try cache.forget(gone)
            try db.run("UPDATE collections SET fetched_at = ?2 WHERE path = ?1", [.text(collection), .real(date)])
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [.text(cursorKey), .text(cursor)])
        }
    }

    /// Forgets the cursor (the server said 410): the next pull lists again.
    public func forgetCursor() throws {
        try db.run("DELETE FROM meta WHERE key = ?1", [.text(cursorKey)])
    }

    /// The server lists in byte order of ids.
    static func serverOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private static func saveMembers(_ paths: [String], of collection: String, at date: UnixSeconds, in db: Database) throws {
        try db.run("""
            INSERT INTO collections (path, members, fetched_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (path) DO UPDATE SET members = excluded.members, fetched_at = excluded.fetched_at
            """, [.text(collection), .text(paths.joined(separator: "\n")), .real(date)])
    }
}
