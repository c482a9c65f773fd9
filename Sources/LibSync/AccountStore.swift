import LibStore

/// One account's SQLite store: its cache of documents and its outbox of
/// writes. Never shared between accounts.
public final class AccountStore {
    public let database: Database
    public var cache: Cache { Cache(db: database) }
    public var outbox: Outbox { Outbox(db: database) }

    /// Opens the store, creating and migrating it when needed.
    public init(path: String) throws {
        database = try Database(path: path)
        try AccountStoreSchema.migrator.migrate(database)
    }

    /// Opens an existing store only to read it (for `lib status` and the
    /// completions): no migration, no write, nothing created.
    public init(readingFrom path: String) throws {
        var options = DatabaseOptions()
        options.readOnly = true
        options.create = false
        database = try Database(path: path, options: options)
    }
}
