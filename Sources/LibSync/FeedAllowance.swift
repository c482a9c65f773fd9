import LibStore

/// How much a collection's change feed may carry before listing it again is
/// the cheaper (and the only bounded) way to be current, as Kubernetes
/// answers 410 and CouchDB starts a replication over: since the last
/// complete listing, the feed may carry what that listing carried plus a
/// margin. A pull that would read past it drops the feed and lists again,
/// and the listing replaces whatever the feed brought, so that what one
/// server adds to the store is bounded by what its listing says the library
/// holds, across any number of pulls, not per pull. Counted in answer bytes,
/// the listing's and the feed's alike; kept in the store's `meta`.
struct FeedAllowance {
    let db: Database
    /// `books`
    let collection: String

    /// A feed may always carry this much more than the listing (a small
    /// library's edits over months), and a tenth more of a large one.
    static func margin(listed: Int) -> Int { max(1 << 20, listed / 10) }

    private var listedKey: String { "listed_bytes:" + collection }
    private var fedKey: String { "fed_bytes:" + collection }

    /// The feed bytes allowed after the last listing, in all.
    func allowed() throws -> Int {
        let listed = try listedBytes()
        return listed + Self.margin(listed: listed)
    }

    /// The feed bytes read since the last listing.
    func fed() throws -> Int {
        try number(fedKey) ?? 0
    }

    /// Counts a feed page (called in the transaction that stores it).
    func recordFed(_ bytes: Int) throws {
        try save(try fed() + bytes, as: fedKey)
    }

    /// A listing of `bytes` is complete (called in the transaction that finishes it).
    func recordListing(bytes: Int) throws {
        try save(bytes, as: listedKey)
        try save(0, as: fedKey)
    }

    /// What the last listing carried; for a store listed by an older
    /// release, what the store holds of the collection (kept from then on).
    private func listedBytes() throws -> Int {
        if let listed = try number(listedKey) { return listed }
        let prefix = collection + "/"
        let held = try db.scalar("""
            SELECT coalesce(sum(length(CAST(path AS BLOB)) + length(CAST(body AS BLOB)) + coalesce(length(etag), 0)), 0)
            FROM documents WHERE path > ?1 AND path < ?2
            """, [.text(prefix), .text(prefix + "\u{10FFFF}")])?.integer ?? 0
        try save(Int(held), as: listedKey)
        return Int(held)
    }

    private func number(_ key: String) throws -> Int? {
        try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(key)])?.text.flatMap { Int($0) }
    }

    private func save(_ value: Int, as key: String) throws {
        try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [.text(key), .text(String(value))])
    }
}
