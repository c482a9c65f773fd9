import Foundation
import Synchronization
import Testing
import TestSupport

/// `lib-server backup` and `lib-server restore` (docs/DEPLOY.md, Backup and
/// restore): a consistent copy of a live SQLite database under writes,
/// errors that name what was wrong and change nothing, and a restore that
/// starts a new feed epoch (on PostgreSQL too, under `make test-postgres`).
@Suite struct BackupRestoreCommandTests {
    static var program: String { BuiltProducts.path("lib-server") }

    static func run(_ arguments: String...) throws -> CommandResult {
        try CommandRunner.run(program, arguments)
    }

    @Test(.disabled(if: TestDatabase.isPostgres, "SQLite files only"))
    func aBackupOfALiveDatabaseUnderWritesHoldsEveryWriteAcknowledgedBeforeItStarted() throws {
        let dir = try TemporaryDirectory("lib-backup")
        let db = dir.file("server.sqlite")
        let server = try ServerProcess(database: db)
        // About 20 MB of history, so that the copy takes several steps of 4 MiB.
        let seeded = try CommandRunner.run("/usr/bin/sqlite3", [db, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO history (book_id, version, etag, updated_by, at, document)
            SELECT 'old-' || i, 1, '"1-0"', 'seed', '2025-01-01T00:00:00Z', printf('{"title":"%.1000c"}', 'x') FROM n
            """])
        try #require(seeded.status == 0, "\(seeded)")
        let alice = try DemoServer.signIn("alice", on: server)

        // One writer creating books w-0, w-1, ... until told to stop.
        let acknowledged = Atomic<Int>(0), failed = Atomic<Int>(0), stop = Atomic<Bool>(false)
        let writer = Thread {
            var n = 0
            while !stop.load(ordering: .relaxed) {
                let answer = try? alice.put("w-\(n)", #"{"title":"Written \#(n)"}"#, create: true)
                if answer?.status == 201 { acknowledged.store(n + 1, ordering: .sequentiallyConsistent) } else {
                    failed.add(1, ordering: .relaxed)
                    break
                }
                n += 1
            }
        }
        writer.start()
        while acknowledged.load(ordering: .sequentiallyConsistent) < 50 { usleep(5_000) }

        let beforeBackup = acknowledged.load(ordering: .sequentiallyConsistent)
        let target = dir.file("backup.sqlite")
        let backup = try Self.run("backup", "--db", db, "--to", target)
        let afterBackup = acknowledged.load(ordering: .sequentiallyConsistent)
        stop.store(true, ordering: .relaxed)
        while !writer.isFinished { usleep(5_000) }

        #expect(backup.status == 0, "\(backup)")
        #expect(failed.load(ordering: .relaxed) == 0, "every write went on while the backup ran")
        let copied = try TestDatabase.integer(target, "SELECT count(*) FROM books WHERE id LIKE 'w-%'")
        let prefix = try TestDatabase.integer(target, "SELECT count(*) FROM books WHERE id LIKE 'w-%' AND CAST(substr(id, 3) AS INTEGER) < \(beforeBackup)")
        #expect(backup.stdout.hasPrefix("Backed up \(20 + copied) books (") && backup.stdout.contains(" from \(db) to \(target) in "), "\(backup)")
        #expect(prefix == beforeBackup, "every write acknowledged before the backup started is in it")
        #expect(copied <= afterBackup, "nothing the server had not acknowledged by the end")
        let highest = try TestDatabase.integer(target, "SELECT max(CAST(substr(id, 3) AS INTEGER)) FROM books WHERE id LIKE 'w-%'")
        #expect(highest + 1 == copied, "one snapshot: no write missing before the newest it holds")
        #expect(try TestDatabase.integer(target, "SELECT count(*) FROM history WHERE book_id LIKE 'old-%'") == 20000)
        #expect(try TestDatabase.query(target, "PRAGMA integrity_check; PRAGMA journal_mode") == "ok\ndelete\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "no partial file left: \(left)")
        Self.record(backup: backup.stdout, writesBefore: beforeBackup, writesDuring: afterBackup - beforeBackup)
        _ = server.stop()
    }

    /// The numbers for the note: how many writes the server acknowledged while the backup ran.
    private static func record(backup: String, writesBefore: Int, writesDuring: Int) {
        guard let file = ProcessInfo.processInfo.environment["LIB_BACKUP_NUMBERS"] else { return }
        let line = "\(backup.trimmingCharacters(in: .newlines)); writes acknowledged before: \(writesBefore), during: \(writesDuring)\n"
        try? Data(line.utf8).write(to: URL(fileURLWithPath: file))
    }

    @Test(.disabled(if: TestDatabase.isPostgres, "SQLite files only"))
    func backupErrorsNameWhatWasWrongAndLeaveTheTargetAlone() throws {
        let dir = try TemporaryDirectory("lib-backup")
        let db = dir.file("server.sqlite")
        _ = try ServerProcess(database: db).stop()

        let missing = try Self.run("backup", "--db", dir.file("nope.sqlite"), "--to", dir.file("b.sqlite"))
        #expect(missing.status == 1 && missing.stderr == "lib-server: --db \(dir.file("nope.sqlite")): no such file\n", "\(missing)")

        let postgres = try Self.run("backup", "--db", "postgresql://lib@localhost/library", "--to", dir.file("b.sqlite"))
        #expect(postgres.status == 2, "\(postgres)")
        #expect(postgres.stderr.hasPrefix("lib-server: backup copies an SQLite database; back up PostgreSQL with pg_dump or pg_basebackup (DEPLOY.md in /usr/share/doc/lib-server, \"Backup and restore\")"), "\(postgres)")

        let existing = dir.file("existing.sqlite")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let refused = try Self.run("backup", "--db", db, "--to", existing)
        #expect(refused.status == 1 && refused.stderr == "lib-server: \(existing) exists; give --replace to overwrite it\n", "\(refused)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let replaced = try Self.run("backup", "--db", db, "--to", existing, "--replace")
        #expect(replaced.status == 0, "\(replaced)")
        #expect(try TestDatabase.integer(existing, "SELECT count(*) FROM books") == 20)

        let nowhere = try Self.run("backup", "--db", db, "--to", dir.file("no-such-dir/b.sqlite"))
        #expect(nowhere.status == 1 && nowhere.stderr == "lib-server: cannot write the backup in \(dir.file("no-such-dir")): No such file or directory\n",
                "\(nowhere)")

        let itself = try Self.run("backup", "--db", db, "--to", db, "--replace")
        #expect(itself.status == 1 && itself.stderr.contains("--to names the database itself"), "\(itself)")

        let notes = dir.file("notes.txt")
        try Data(String(repeating: "not a database\n", count: 300).utf8).write(to: URL(fileURLWithPath: notes))
        let notADatabase = try Self.run("backup", "--db", notes, "--to", dir.file("c.sqlite"))
        #expect(notADatabase.status == 1 && notADatabase.stderr == "lib-server: --db \(notes) is not an SQLite database that can be opened: file is not a database\n",
                "\(notADatabase)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("c.sqlite")))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "no partial file left: \(left)")
    }

    @Test(.disabled(if: TestDatabase.isPostgres, "SQLite files only"))
    func restoreFromABackupRefusesARunningServerThenPutsTheBackupBackUnderANewEpoch() throws {
        let dir = try TemporaryDirectory("lib-restore")
        let db = dir.file("server.sqlite")
        let server = try ServerProcess(database: db)
        let alice = try DemoServer.signIn("alice", on: server)
        let backup = dir.file("backup.sqlite")
        #expect(try Self.run("backup", "--db", db, "--to", backup).status == 0)
        let before = try alice.changes(since: nil).next
        #expect(try alice.put("b-1", #"{"title":"After the backup"}"#, ifMatch: try alice.etag(of: "b-1")).status == 200)

        let inUse = try Self.run("restore", "--db", db, "--from", backup)
        #expect(inUse.status == 1, "\(inUse)")
        #expect(inUse.stderr == "lib-server: \(db) is in use: stop lib-server (and anything else that has it open) before restoring; nothing was changed\n")
        #expect(try alice.get("/v1/books/b-1").json?["title"] == "After the backup", "nothing was changed")

        let notes = dir.file("notes.txt")
        try Data("not a backup".utf8).write(to: URL(fileURLWithPath: notes))
        #expect(try Self.run("restore", "--db", db, "--from", notes).status == 1)
        #expect(try Self.run("restore", "--db", "postgresql://lib@localhost/library", "--from", backup).status == 2)
        let missing = try Self.run("restore", "--db", dir.file("nope.sqlite"))
        #expect(missing.status == 1 && missing.stderr == "lib-server: --db \(dir.file("nope.sqlite")): no such file\n", "\(missing)")

        #expect(server.stop() == 0)
        let restore = try Self.run("restore", "--db", db, "--from", backup)
        #expect(restore.status == 0, "\(restore)")
        let lines = restore.stdout.split(separator: "\n")
        #expect(lines.first == "Restored 20 books from \(backup) into \(db)")
        let epoch = try #require(lines.last?.split(separator: " ").dropFirst(3).first.map { String($0.dropLast()) })
        #expect(lines.last == "Started feed epoch \(epoch): every device lists the books again at its next pull")

        let restarted = try server.restarted()
        let again = try DemoServer.signIn("alice", on: restarted)
        #expect(try again.get("/v1/books/b-1").json?["title"] == "Pride and Prejudice", "the book as the backup had it")
        #expect(try again.get("/v1/changes?since=\(before)").status == 410, "a cursor from before the restore lists again")
        #expect(try again.changes(since: nil).next.hasPrefix(epoch + "-"))
        // The backup file is read, never changed.
        #expect(try TestDatabase.query(backup, "PRAGMA journal_mode") == "delete\n")
    }

    /// Without --from, on SQLite or PostgreSQL, and with servers running:
    /// only the epoch moves on, and every earlier cursor is answered 410.
    @Test func restoreWithoutFromStartsANewEpochWhileTheServerServes() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let before = try alice.changes(since: nil).next
        let restore = try Self.run("restore", "--db", demo.server.databasePath)
        #expect(restore.status == 0, "\(restore)")
        #expect(restore.stdout.hasPrefix("Started feed epoch ") && !restore.stdout.contains("Restored"), "\(restore)")
        let epoch = try #require(restore.stdout.split(separator: " ").dropFirst(3).first.map { String($0.dropLast()) })
        #expect(try alice.get("/v1/changes?since=\(before)").status == 410)
        let now = try alice.changes(since: nil).next
        #expect(now.hasPrefix(epoch) && !before.hasPrefix(epoch), "before \(before), now \(now), epoch \(epoch)")
    }
}

extension DemoServer {
    /// A signed-in client of any running server.
    static func signIn(_ user: String, on server: ServerProcess) throws -> SignedInClient {
        let client = try HTTPTestClient(port: server.port)
        let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                        body: #"{"username":"\#(user)","password":"\#(user)-demo"}"#)
        try #require(answer.status == 201, "login as \(user): \(answer.status) \(answer.text)")
        let json = try #require(answer.json)
        return SignedInClient(client: client, token: try #require(json["token"]?.stringValue),
                              userID: try #require(json["account"]?["id"]?.stringValue))
    }
}
