import LibStore

/// The account's generation: logout raises it first of all, and a push
/// checks it before every send, so that once logout has begun nothing more
/// of this account's outbox goes on the wire, even from another process.
extension AccountStore {
    public func generation() throws -> Int64 {
        let value = try database.scalar(cached: "SELECT value FROM meta WHERE key = 'generation'")?.text
        return value.flatMap { Int64($0) } ?? 0
    }

    @discardableResult
    public func advanceGeneration() throws -> Int64 {
        try database.write { db in
            let next = (try db.scalar("SELECT value FROM meta WHERE key = 'generation'")?.text.flatMap { Int64($0) } ?? 0) + 1
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?1)", [.text(String(next))])
            return next
        }
    }
}
