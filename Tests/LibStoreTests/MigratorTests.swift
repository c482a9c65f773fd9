import LibStore
import Testing
import TestSupport

@Suite struct MigratorTests {
    private func migrator(_ names: [String]) -> Migrator {
        var m = Migrator()
        for name in names { m.register(name, sql: "CREATE TABLE \(name) (x)") }
        return m
    }

    @Test func appliesInOrderOnceEach() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        #expect(try migrator(["one", "two"]).migrate(db) == ["one", "two"])
        #expect(try migrator(["one", "two"]).migrate(db) == [])
        #expect(try migrator(["one", "two", "three"]).migrate(db) == ["three"])
        let recorded = try db.query("SELECT name FROM schema_migrations ORDER BY rowid").compactMap { $0[0].text }
        #expect(recorded == ["one", "two", "three"])
    }

    @Test func failedMigrationRollsBackAndIsNotRecorded() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        var m = Migrator()
        m.register("good", sql: "CREATE TABLE good (x)")
        m.register("bad", sql: "CREATE TABLE half (x); CREATE TABLE broken (")
        #expect(throws: DatabaseError.self) { try m.migrate(db) }
        #expect(try db.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'half'")?.integer == 0)
        #expect(try db.query("SELECT name FROM schema_migrations").compactMap { $0[0].text } == ["good"])
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        try migrator(["one", "two"]).migrate(db)
        let error = #expect(throws: MigrationError.self) { try migrator(["one"]).migrate(db) }
        #expect(error == .unknownMigration(name: "two", path: dir.file("s.sqlite")))
    }
}
