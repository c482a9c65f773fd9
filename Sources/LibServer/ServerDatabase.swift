import LibStore

/// Opens (creating when missing) and migrates the server's database: an
/// SQLite file, or a PostgreSQL database named by a libpq connection string.
public enum ServerDatabase {
    /// Connections per process: enough for the requests a 2-core machine
    /// serves at once; more only queue on the database's own locks.
    static let poolSize = 4

    public static func open(_ location: String, demo: Bool = false) throws -> ServerStore {
        let store = try PostgresLocation.isPostgres(location) ? PostgresStore.open(location) : openSQLite(location)
        if demo { try DemoData.install(in: store, at: ServerClock.system.now()) }
        return store
    }

    private static func openSQLite(_ path: String) throws -> ServerStore {
        let first = try SQLiteConnection(path: path)
        try ServerMigrator(for: .sqlite).migrate(first, location: path)
        var others: [any SQLConnection] = []
        for _ in 1..<poolSize { others.append(try SQLiteConnection(path: path)) }
        // Its own connection: the pool's are lent to other threads.
        let watch = CommitWatch(try Database(path: path))
        return ServerStore(first: first, others: others, commitWatch: watch)
    }

    /// `lib-server user add`: a user with a password read by the caller.
    public static func addUser(_ name: String, password: String, role: Role, in store: ServerStore) throws {
        try UserDirectory.addUser(name, password: password, role: role, at: ServerClock.system.now(), in: store)
    }
}
