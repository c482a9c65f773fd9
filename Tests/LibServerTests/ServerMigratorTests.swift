import Foundation
import LibStore
@testable import LibServer
import Testing
import TestSupport

/// lib-server's one migration runner, on the store the suite runs on:
/// SQLite, or PostgreSQL under scripts/with-postgres.sh.
@Suite struct ServerMigratorTests {
    let directory: TemporaryDirectory
    let location: String

    init() throws {
        directory = try TemporaryDirectory("server-migrator")
        location = try TestDatabase.fresh(in: directory)
    }

    func connect() throws -> any SQLConnection { try Self.connect(location) }

    static func connect(_ location: String) throws -> any SQLConnection {
        PostgresLocation.isPostgres(location) ? try PostgresConnection(uri: location) : try SQLiteConnection(path: location)
    }

    static let one = ServerMigration("001-one", sql: "CREATE TABLE one (id TEXT PRIMARY KEY NOT NULL);")
    static let two = ServerMigration("002-two", sql: "CREATE TABLE two (id TEXT); CREATE TABLE two_more (id TEXT);")
    static let three = ServerMigration("003-three", sql: "ALTER TABLE one ADD COLUMN note TEXT;")

    func recorded(_ db: any SQLConnection) throws -> [String] {
        try db.query("SELECT name FROM schema_migrations ORDER BY name").compactMap { $0[0].text }
    }

    func tableExists(_ name: String, _ db: any SQLConnection) -> Bool {
        (try? db.query("SELECT count(*) FROM \(name)")) != nil
    }

    @Test func theStoresMigrationsAreAppliedInOrderOnceEach() throws {
        let db = try connect()
        let migrator = ServerMigrator(for: db.dialect)
        #expect(migrator.migrations.map(\.name) == (db.dialect == .sqlite
            ? ["001-users-and-sessions", "002-books-and-history", "003-idempotency", "004-idempotency-claims", "005-change-feed", "006-session-use", "007-change-device", "008-device-grants"]
            : ["001-library", "002-change-feed", "003-session-use", "004-change-device", "005-device-grants"]), "an existing database records these names: never rename them")
        #expect(try migrator.migrate(db, location: location) == migrator.migrations.map(\.name))
        #expect(try recorded(db) == migrator.migrations.map(\.name))
        #expect(try migrator.migrate(db, location: location).isEmpty)
        #expect(try migrator.migrate(try connect(), location: location).isEmpty)
        #expect(try db.query("SELECT claim, lease_until FROM idempotency").isEmpty, "004's columns are there")
    }

    @Test func aLaterReleaseAppliesOnlyWhatIsNew() throws {
        let db = try connect()
        #expect(try ServerMigrator(migrations: [Self.one]).migrate(db, location: location) == ["001-one"])
        #expect(try ServerMigrator(migrations: [Self.one, Self.two, Self.three]).migrate(db, location: location) == ["002-two", "003-three"])
        #expect(try recorded(db) == ["001-one", "002-two", "003-three"])
        #expect(tableExists("two_more", db))
        #expect(try db.query("SELECT note FROM one").isEmpty)
    }

    /// A database a newer lib-server made is left as it is, and the error names the migration it does not know.
    @Test func aDatabaseFromANewerServerIsRefusedUntouched() throws {
        let db = try connect()
        try ServerMigrator(migrations: [Self.one, Self.two]).migrate(db, location: location)
        let older = ServerMigrator(migrations: [Self.one, Self.three])
        let error = #expect(throws: ServerMigrationError.self) { try older.migrate(db, location: location) }
        #expect(error?.description == "The database \(location) was made by a newer lib-server (it has migration '002-two'); upgrade lib-server to use it")
        #expect(try recorded(db) == ["001-one", "002-two"])
        #expect((try? db.query("SELECT note FROM one")) == nil, "003-three must not have run")
    }

    /// A migration that fails is rolled back whole and not recorded; the ones before it stay.
    @Test func aFailingMigrationLeavesNothingBehind() throws {
        let db = try connect()
        let broken = ServerMigration("002-broken", sql: "CREATE TABLE half (id TEXT); CREATE TABLE one (id TEXT);")
        #expect(throws: (any Error).self) { try ServerMigrator(migrations: [Self.one, broken]).migrate(db, location: location) }
        #expect(try recorded(db) == ["001-one"])
        #expect(!tableExists("half", db), "the failed migration's first statement must be rolled back")
        #expect(try ServerMigrator(migrations: [Self.one, Self.two]).migrate(db, location: location) == ["002-two"])
    }

    /// Servers starting together on a new database: each migration runs once, and none fails.
    @Test func concurrentServersOnANewDatabaseApplyEachMigrationOnce() throws {
        let location = self.location
        let results = Shared<[Result<[String], any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let result = Result { () throws -> [String] in
                let db = try Self.connect(location)
                return try ServerMigrator(for: db.dialect).migrate(db, location: location)
            }
            results.withLock { $0.append(result) }
        }
        let db = try connect()
        let names = ServerMigrator(for: db.dialect).migrations.map(\.name)
        let applied = try results.value.map { try $0.get() }
        #expect(applied.flatMap { $0 }.sorted() == names.sorted(), "\(applied)")
        #expect(try recorded(db) == names)
    }
}
