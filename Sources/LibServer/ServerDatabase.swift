import LibStore

/// Opens (creating when missing) and migrates the server's database.
public enum ServerDatabase {
    public static func open(path: String, demo: Bool = false) throws -> Database {
        let db = try Database(path: path)
        try ServerSchema.migrator.migrate(db)
        if demo { try DemoData.install(in: db) }
        return db
    }

    /// `lib-server user add`: a user with a password read by the caller.
    public static func addUser(_ name: String, password: String, role: Role, in db: Database) throws {
        try UserDirectory.addUser(name, password: password, role: role, in: db)
    }
}
