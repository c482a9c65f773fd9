import LibStore

/// One account's SQLite store: its cache of documents and its outbox of
/// writes. Never shared between accounts.
public final class AccountStore {
    public let database: Database
    public var cache: Cache { Cache(db: database) }
    public var deletionsSeen: SeenDeletions { SeenDeletions(db: database) }
    public var outbox: Outbox { Outbox(db: database) }
    public var pushedLog: PushedLog { PushedLog(db: database) }
    /// What the server last said: behind by, last contact; the device's name.
    public var contact: ServerContact { ServerContact(db: database) }
    /// The whole collection on this device and the change feed's cursor (`lib pull`).
    public func mirror(of collection: String) -> LibraryMirror { LibraryMirror(db: database, collection: collection) }
    /// Full text over the offline library, unsent writes applied (`lib search`).
    public var search: LibrarySearch { LibrarySearch(db: database) }

    private var outboxWatch: TableChangeWatch?

    /// Opens the store, creating and migrating it when needed. The observer,
    /// when given, hears of every outbox change this connection makes.
    public init(path: String, outboxObserver: (any OutboxObserver)? = nil) throws {
        database = try Database(path: path)
        try AccountStoreSchema.migrator.migrate(database)
        if let observer = outboxObserver {
            outboxWatch = TableChangeWatch(
                database: database, table: "outbox",
                willChange: { observer.outboxWillChange() },
                didCommit: { db in
                    observer.outboxDidCommit(try? Outbox(db: db).counts(), behind: (try? ServerContact(db: db).heard().behind) ?? 0)
                },
                didRollBack: { observer.outboxDidRollBack() })
        }
    }

    /// Opens an existing store only to read it (for `lib status` and the
    /// completions): no write, nothing created; only a store an earlier
    /// release made is migrated first (once), so that it reads as this
    /// release's.
    public init(readingFrom path: String) throws {
        var options = DatabaseOptions()
        options.readOnly = true
        options.create = false
        let reader = try Database(path: path, options: options)
        // Every migration, not only the newest: branches add them in
        // parallel, and a store may have a later one without an earlier one.
        if try reader.scalar(cached: AccountStoreSchema.countApplied)?.integer == Int64(AccountStoreSchema.names.count) {
            database = reader
        } else {
            options.readOnly = false
            database = try Database(path: path, options: options)
            try AccountStoreSchema.migrator.migrate(database)
        }
    }
}

/// Hears, for one connection, when a transaction starts changing the
/// outbox (before its first row changes) and when it has committed (with
/// the counts then, nil if they could not be read) or rolled back: what
/// keeps a file derived from the outbox (the prompt file) from ever showing
/// what is not committed.
public protocol OutboxObserver: AnyObject {
    func outboxWillChange()
    /// `behind`: what the server last said this device is behind by (the prompt shows it too).
    func outboxDidCommit(_ counts: (pending: Int, conflicts: Int, rejected: Int)?, behind: Int)
    func outboxDidRollBack()
}
