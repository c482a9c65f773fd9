import Foundation
import LibStore
import Testing
import TestSupport

@Suite struct DatabaseTests {
    @Test func createsFileWithMode0600WhateverTheUmask() throws {
        let dir = try TemporaryDirectory()
        let old = umask(0)
        defer { umask(old) }
        let db = try Database(path: dir.file("store.sqlite"))
        try db.execute("CREATE TABLE t (x)")
        try db.run("INSERT INTO t VALUES (1)")
        for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.file(name))
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(name) has mode \(String(mode ?? -1, radix: 8))")
        }
    }

    @Test func usesWALAndFullSynchronousAndBusyTimeout() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        #expect(try db.scalar("PRAGMA journal_mode")?.text == "wal")
        #expect(try db.scalar("PRAGMA synchronous")?.integer == 2)
        #expect(try db.scalar("PRAGMA busy_timeout")?.integer == 5000)
    }

    @Test func cachedStatementsAreReusedHoldNoSnapshotAndNest() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        let other = try Database(path: dir.file("s.sqlite"))
        try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)")
        try db.run(cached: "INSERT INTO t VALUES (?1, ?2)", [.text("a"), .integer(1)])
        try db.run(cached: "INSERT INTO t VALUES (?1, ?2)", [.text("b"), .integer(2)])
        #expect(try db.scalar(cached: "SELECT v FROM t WHERE k = ?1", [.text("a")])?.integer == 1)
        // Had the statement kept its row, this connection would still read
        // the snapshot it was taken in.
        try other.run("UPDATE t SET v = 10 WHERE k = 'a'")
        #expect(try db.scalar(cached: "SELECT v FROM t WHERE k = ?1", [.text("a")])?.integer == 10)
        let nested = try db.withCachedStatement("SELECT k FROM t ORDER BY k") { outer in
            try outer.bind([])
            return try outer.rows { row in
                [row.text(at: 0) ?? ""] + (try db.withCachedStatement("SELECT k FROM t ORDER BY k") { inner in
                    try inner.bind([])
                    return try inner.rows { $0.text(at: 0) ?? "" }
                })
            }
        }
        #expect(nested == [["a", "a", "b"], ["b", "a", "b"]])
    }

    @Test func fileThatIsNotADatabaseFailsAtOpen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        try Data("these are my notes, not a database\n".utf8 + [UInt8](repeating: 0x41, count: 4096)).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { try Database(path: path) }
        #expect(error?.isNotADatabase == true)
        #expect(error?.description == "The file is not a lib database (\(path))")
    }

    @Test func corruptDatabaseFailsAtOpen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("broken.sqlite")
        do {
            let db = try Database(path: path, options: { var o = DatabaseOptions(); o.walJournal = false; return o }())
            try db.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('hello')")
        }
        // Keep the header, overwrite the schema page with garbage.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for i in 100..<min(bytes.count, 4096) { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { try Database(path: path) }
        #expect(error?.isCorrupt == true, "got \(String(describing: error))")
    }

    @Test func errorsCarryExtendedCodeMessageAndSQL() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        try db.execute("CREATE TABLE t (id TEXT PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES (?1)", ["a"])
        let error = #expect(throws: DatabaseError.self) { try db.run("INSERT INTO t VALUES (?1)", ["a"]) }
        #expect(error?.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error?.isConstraintViolation == true)
        #expect(error?.message.contains("UNIQUE constraint failed: t.id") == true)
        #expect(error?.sql == "INSERT INTO t VALUES (?1)")

        let syntax = #expect(throws: DatabaseError.self) { try db.execute("SELEKT 1") }
        #expect(syntax?.code == 1)
        #expect(syntax?.sql == "SELEKT 1")
    }

    @Test func writeCommitsAndRollsBackOnError() throws {
        struct Abort: Error {}
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.write { db in try db.run("INSERT INTO t VALUES (1)") }
        #expect(throws: Abort.self) {
            try db.write { db in
                try db.run("INSERT INTO t VALUES (2)")
                throw Abort()
            }
        }
        #expect(db.isInTransaction == false)
        #expect(try db.query("SELECT x FROM t").map { $0["x"] } == [.integer(1)])
    }

    /// `write` is a transaction of its own outside one, and part of the
    /// caller's inside one: committed or rolled back with it.
    @Test func aWriteIsItsOwnTransactionOrPartOfTheCallers() throws {
        struct Abort: Error {}
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.write { db in try db.run("INSERT INTO t VALUES (1)"); try db.run("INSERT INTO t VALUES (2)") }
        #expect(db.isInTransaction == false)
        #expect(throws: Abort.self) {
            try db.write { db in try db.run("INSERT INTO t VALUES (3)"); throw Abort() }
        }
        #expect(throws: Abort.self) {
            try db.write { db in
                try db.run("INSERT INTO t VALUES (4)")
                try db.write { db in try db.run("INSERT INTO t VALUES (5)"); throw Abort() }
            }
        }
        try db.write { db in
            try db.write { db in try db.run("INSERT INTO t VALUES (6)") }
            #expect(db.isInTransaction, "still the caller's transaction")
        }
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0["x"] } == [.integer(1), .integer(2), .integer(6)])
    }

    @Test func bindsAndReadsEveryType() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("s.sqlite"))
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        let values: [SQLValue] = [.null, .integer(-42), .real(2.5), .text("é ☃ \u{0}x"), .blob([0, 1, 255])]
        try db.run("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", values)
        let row = try #require(try db.query("SELECT * FROM t").first)
        #expect(row.values == values)
        #expect(row.columns == ["a", "b", "c", "d", "e"])
    }

    @Test func readOnlyStoreReportsReadOnlyOnWrite() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("s.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (x)")
        }
        var options = DatabaseOptions()
        options.readOnly = true
        let db = try Database(path: path, options: options)
        let error = #expect(throws: DatabaseError.self) { try db.run("INSERT INTO t VALUES (1)") }
        #expect(error?.isReadOnly == true)
    }

    @Test func threadsWithTheirOwnConnectionsAndAnotherProcessAllWrite() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("shared.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (writer TEXT, n INTEGER)")
        }
        // The other process: the sqlite3 CLI, each insert its own IMMEDIATE transaction.
        var script = ".timeout 10000\n"
        for n in 0..<200 { script += "BEGIN IMMEDIATE; INSERT INTO t VALUES ('cli', \(n)); COMMIT;\n" }
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        cli.arguments = [path]
        let input = Pipe()
        cli.standardInput = input
        let errors = Pipe()
        cli.standardError = errors
        try cli.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()

        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                let db = try Database(path: path)
                for n in 0..<200 {
                    try db.write { db in
                        let count = try db.scalar("SELECT count(*) FROM t WHERE writer = ?1", [.text("swift\(worker)")])?.integer ?? -1
                        #expect(count == Int64(n))
                        try db.run("INSERT INTO t VALUES (?1, ?2)", [.text("swift\(worker)"), .integer(Int64(n))])
                    }
                }
            } catch {
                failures.add("\(error)")
            }
        }
        cli.waitUntilExit()
        #expect(failures.all.isEmpty)
        #expect(cli.terminationStatus == 0)
        let db = try Database(path: path)
        #expect(try db.scalar("SELECT count(*) FROM t")?.integer == 600)
        #expect(try db.integrityCheck() == ["ok"])
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
