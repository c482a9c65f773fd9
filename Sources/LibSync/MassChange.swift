import LibBase
import LibStore

/// What a push of the outbox would do to the account's books, as the
/// mass-change guard (`MassChangeGuard`) counts it: how many distinct books
/// its pending writes delete or blank a field of, out of how many books the
/// offline library holds.
public struct MassChange: Sendable, Equatable {
    /// Books a pending write deletes, or blanks a field of that had a value.
    public var destructive: Int
    /// The account's books: those in the offline library.
    public var books: Int

    public init(destructive: Int, books: Int) {
        self.destructive = destructive
        self.books = books
    }

    /// The pending writes among `items` (conflicts and rejected writes wait
    /// for `lib resolve`: a push does not send them), each against the
    /// version it goes against.
    public init(items: [OutboxItem], books: Int) {
        var paths: Set<String> = []
        for item in items where item.status == .pending && Self.isDestructive(item) {
            paths.insert(item.path)
        }
        self.init(destructive: paths.count, books: books)
    }

    /// The account's outbox and offline library now.
    public init(store: AccountStore) throws {
        self.init(items: try store.outbox.all(), books: try store.cache.count(under: "books/"))
    }

    /// A delete, or a change that blanks a field the version it goes against had.
    public static func isDestructive(_ item: OutboxItem) -> Bool {
        if item.intent.isDelete { return true }
        let base = item.base
        return MassChangeGuard.isDestructive(before: base, after: item.intent.applied(to: base))
    }
}

/// A push the mass-change guard refused, kept in the store's `meta` table
/// until a push gets past the guard or writes are discarded: what `lib
/// status` and `lib doctor` show after a refusal under cron.
public struct MassChangeRefusal: Sendable, Equatable {
    public var destructive: Int
    public var books: Int
    /// How many the guard allowed.
    public var allowed: Int
    /// Which guard refused: this device's or the server's.
    public var byServer: Bool
    public var at: UnixSeconds

    public init(destructive: Int, books: Int, allowed: Int, byServer: Bool, at: UnixSeconds) {
        self.destructive = destructive
        self.books = books
        self.allowed = allowed
        self.byServer = byServer
        self.at = at
    }

    private static let key = "mass_change_refused"

    /// The refusal the store holds, if any.
    public static func recorded(in store: AccountStore) throws -> MassChangeRefusal? {
        guard let value = try store.database.scalar("SELECT value FROM meta WHERE key = ?1", [.text(key)])?.text else {
            return nil
        }
        // "DESTRUCTIVE BOOKS ALLOWED client|server AT"
        let words = value.split(separator: " ").map(String.init)
        guard words.count == 5, let destructive = Int(words[0]), let books = Int(words[1]), let allowed = Int(words[2]),
              ["client", "server"].contains(words[3]), let at = Double(words[4]) else { return nil }
        return MassChangeRefusal(destructive: destructive, books: books, allowed: allowed, byServer: words[3] == "server", at: at)
    }

    public func record(in store: AccountStore) throws {
        let value = "\(destructive) \(books) \(allowed) \(byServer ? "server" : "client") \(at)"
        try store.database.run("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                               [.text(Self.key), .text(value)])
    }

    public static func clear(in store: AccountStore) throws {
        try clear(store.database)
    }

    static func clear(_ db: Database) throws {
        try db.run("DELETE FROM meta WHERE key = ?1", [.text(key)])
    }
}
