import LibBase
import LibJSON
import LibStore

/// The account's offline copy of a whole collection (`lib pull`): a full
/// listing, stored page by page, replaces it, the change feed's pages bring
/// it up to date, and the listing's place or the feed's cursor is stored in
/// the same transaction as what it covers, so a pull killed half-way goes on
/// from what was committed. Only the
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
    /// The index fields of the books this mirror's listing stored unindexed.
    private let listedFields = ListedIndexFields()

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

    /// When a pull last confirmed the collection (listed it or read the
    /// feed up to now); nil when it was never pulled.
    public func lastPulled() throws -> UnixSeconds? {
        guard try isPulled else { return nil }
        return try db.scalar(cached: "SELECT fetched_at FROM collections WHERE path = ?1", [.text(collection)])?.real
    }

    private var listingKey: String { "listing:" + collection }

    /// A listing under way, page by page: the feed's cursor taken before it
    /// began (nil: a server without a feed), the id its last stored page
    /// ended at (nil: none stored yet), and what its stored pages held (in
    /// all, whichever pulls stored them) against the total the server said.
    /// A pull that stopped goes on from there.
    public struct Listing: Sendable, Equatable {
        public var cursor: String?
        public var after: String?
        public var members = 0
        public var bytes = 0
        public var total: Int?

        public init(cursor: String?, after: String?) {
            self.cursor = cursor
            self.after = after
        }
    }

    /// The listing under way, if a pull began one and did not finish it.
    public func listing() throws -> Listing? {
        guard let text = try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(listingKey)])?.text,
              let state = try? JSONParser.parse(text) else { return nil }
        var listing = Listing(cursor: state["cursor"]?.stringValue, after: state["after"]?.stringValue)
        listing.members = state["members"]?.integerValue.map(Int.init) ?? 0
        listing.bytes = state["bytes"]?.integerValue.map(Int.init) ?? 0
        listing.total = state["total"]?.integerValue.map(Int.init)
        return listing
    }

    /// Starts a listing (after taking the feed's cursor for "now").
    public func beginListing(cursor: String?) throws {
        try saveListing(Listing(cursor: cursor, after: nil), in: db)
    }

    /// One page of a listing, in one transaction with the listing's place:
    /// the page lists every member with an id after `after` up to `next`
    /// (the id to list after next; nil on the last page: to the end), so
    /// cached books in that range it does not list are gone from the
    /// server. `fields`: the members' index fields, as the read-ahead read
    /// them (nil: the store reads them from the JSON when it indexes them).
    /// `bytes` and `total`: the page's size, and the library's size if it said.
    /// Returns how many cached books were forgotten.
    @discardableResult
    public func storeListed(_ members: [Cache.Copy], after: String?, next: String?, fields: [BookIndexFields]? = nil,
                            bytes: Int = 0, total: Int? = nil, at date: UnixSeconds) throws -> Int {
        // A page's commit is not synced to disk: a page lost with the power
        // goes with the place after it (one transaction), and is listed
        // again. A killed process loses nothing committed (WAL), and the
        // listing's end (finishListing) syncs every page before it. A sync
        // a page made a first pull of 100,000 books wait on the disk 101
        // times (on a busy machine 12 s for 2.6 s of work).
        try db.execute("PRAGMA synchronous=NORMAL")
        defer { try? db.execute("PRAGMA synchronous=FULL") }
        try listedFields.beforePage(in: db)
        defer { try? listedFields.afterPage(in: db) }
        return try db.write { db in
            let cache = Cache(db: db)
            let prefix = collection + "/"
            let low = after.map { prefix + $0 } ?? prefix
            // The last page covers everything after it; another page up to
            // the id it says to list after next.
            let high = next.map { prefix + $0 } ?? prefix + "\u{10FFFF}"
            let listed = Set(members.map(\.path))
            let inRange = try db.query("SELECT path FROM documents WHERE path > ?1 AND path <= ?2",
                                       [.text(low), .text(high)]).compactMap { $0[0].text }
            let gone = inRange.filter { !listed.contains($0) }
            try cache.forget(gone)
            try SeenDeletions(db: db).record(gone, at: date)
            // Indexed some pages at a time (IndexLag), in this transaction when this page reaches the step.
            try cache.save(members, at: date, indexing: false)
            listedFields.stored(members.map(\.path), fields, after: low, through: high)
            try IndexLag.stored(members.count, after: low, through: high, of: collection, listed: listedFields, in: db)
            var listing = try self.listing() ?? Listing(cursor: nil, after: nil)
            listing.after = next
            listing.members += members.count
            listing.bytes += bytes
            listing.total = total ?? listing.total
            try saveListing(listing, in: db)
            return gone.count
        }
    }

    /// The listing is complete: its cursor becomes the feed's place (the
    /// members are every cached document under the collection).
    public func finishListing(at date: UnixSeconds) throws {
        try listedFields.beforePage(in: db)
        try db.write { db in
            let listing = try self.listing()
            try IndexLag.catchUp(collection, listed: listedFields, in: db)
            let members = try Cache(db: db).paths(withPrefix: collection + "/", limit: Int.max)
            try Self.saveMembers(members.sorted(by: Self.serverOrder), of: collection, at: date, in: db)
            if let cursor = listing?.cursor {
                try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [.text(cursorKey), .text(cursor)])
            } else {
                try db.run("DELETE FROM meta WHERE key = ?1", [.text(cursorKey)])
            }
            try feedAllowance.recordListing(bytes: listing?.bytes ?? 0)
            try db.run("DELETE FROM meta WHERE key = ?1", [.text(listingKey)])
        }
    }

    /// Drops a listing under way (its cursor is gone from the server): the next one starts over.
    public func abandonListing() throws {
        try db.write { db in
            // The next listing may not reach the books this one left unindexed.
            try IndexLag.catchUp(collection, listed: listedFields, in: db)
            try db.run("DELETE FROM meta WHERE key = ?1", [.text(listingKey)])
        }
    }

    private func saveListing(_ listing: Listing, in db: Database) throws {
        var state = JSONObject()
        state["cursor"] = listing.cursor.map(JSONValue.string) ?? .null
        state["after"] = listing.after.map(JSONValue.string) ?? .null
        state["members"] = .integer(Int64(listing.members))
        state["bytes"] = .integer(Int64(listing.bytes))
        state["total"] = listing.total.map { .integer(Int64($0)) } ?? .null
        try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                   [.text(listingKey), .text(JSONValue.object(state).serialized())])
    }

    /// What the feed may still carry before a listing replaces it.
    var feedAllowance: FeedAllowance { FeedAllowance(db: db, collection: collection) }

    /// One page of the feed (of `bytes`), and the cursor after it, in one
    /// transaction. Unchanged copies (same ETag) are only marked current.
    public func apply(_ changes: [Change], cursor: String, bytes: Int = 0, at date: UnixSeconds) throws {
        try db.write { db in
            try feedAllowance.recordFed(bytes)
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
            try SeenDeletions(db: db).record(gone, at: date)
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
