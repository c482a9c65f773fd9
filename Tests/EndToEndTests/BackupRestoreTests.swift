import Foundation
import Synchronization
import Testing
import TestSupport

/// A backup taken while lib-server serves about 200 writes a second, then
/// a restore from it (a new feed epoch) while four devices hold pending
/// writes (issue 48): after the restart every device pushes and pulls, no
/// pending write is lost (each is applied, or a conflict `lib resolve`
/// lists), and every device shows the books the server has. On SQLite with
/// `lib-server backup` and `restore --from`; on PostgreSQL (under
/// scripts/with-postgres.sh) with DEPLOY.md's recipe: pg_dump, pg_restore
/// into a new database, then `lib-server restore --db URI`.
@Suite struct BackupRestoreTests {
    /// The load: this many writes a second, for this long; the backup starts half-way.
    static let writesPerSecond = 200.0
    static let loadSeconds = 2.0
    static let postgresBin = "/usr/lib/postgresql/15/bin"

    @Test func devicesConvergeAfterARestoreWithoutLosingAPendingWrite() throws {
        let dir = try TemporaryDirectory("lib-e2e-backup")
        let db = try TestDatabase.fresh(in: dir)
        let server = try ServerProcess(database: db)
        if !TestDatabase.isPostgres {
            // About 26 MB of history, so that the copy takes several steps while the load goes on.
            let seeded = try CommandRunner.run("/usr/bin/sqlite3", [db, """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                INSERT INTO history (book_id, version, etag, updated_by, at, document)
                SELECT 'old-' || i, 1, '"1-0"', 'seed', '2025-01-01T00:00:00Z', printf('{"title":"%.1000c"}', 'x') FROM n
                """])
            try #require(seeded.status == 0, "\(seeded)")
        }
        let users = ["alice", "alice", "bob", "bob"]
        let devices = try users.map { _ in try LibHarness() }
        for (device, user) in zip(devices, users) {
            try device.login(user, to: server)
            let pull = try device.lib("pull")
            try #require(pull.status == 0, "\(pull)")
        }
        // Acknowledged before the backup: the restore keeps it.
        #expect(try devices[0].lib("edit", "books/b-1", "title=Pride and Prejudice (before the backup)", "--push").status == 0)

        let load = try Load(port: server.port)
        load.start()
        while load.acknowledged < Int(Self.writesPerSecond * Self.loadSeconds / 2) { usleep(5_000) }
        let loadBefore = load.acknowledged
        let backupFile = dir.file(TestDatabase.isPostgres ? "library.dump" : "backup.sqlite")
        let backupStarted = Date()
        let backup = TestDatabase.isPostgres
            ? try CommandRunner.run(Self.postgresBin + "/pg_dump", ["-Fc", "-f", backupFile, db])
            : try CommandRunner.run(BuiltProducts.path("lib-server"), ["backup", "--db", db, "--to", backupFile])
        let backupSeconds = Date().timeIntervalSince(backupStarted)
        let loadDuring = load.acknowledged - loadBefore
        try #require(backup.status == 0, "\(backup)")
        let loadReport = load.finish()
        #expect(loadReport.failures == 0, "every write of the load was answered: \(loadReport)")

        // Acknowledged after the backup: the restore takes it back.
        #expect(try devices[2].lib("edit", "books/b-3", "title=Changed after the backup", "--push").status == 0)
        for device in devices { #expect(try device.lib("pull").status == 0) }
        let lastLoadBook = "load-\(loadReport.acknowledged - 1)"
        #expect(server.stop() == 0)

        let restore = try Self.restore(db, from: backupFile, in: dir)
        #expect(restore.status == 0, "\(restore)")
        #expect(restore.stdout.contains("Started feed epoch "), "\(restore)")

        // Pending writes, made while the server is away.
        let edits: [(device: Int, path: String, change: [String])] = [
            (0, "books/b-5", ["title=Emma (device 1)"]),
            (1, "books/b-3", ["title=The Hobbit (device 2)"]),
            (2, "books/b-8", ["year:=2001"]),
            (2, "books/b-1", ["copies:=9"]),
            (3, "books/d4-new", ["--create", "title=Made on device 4"]),
            (3, "books/\(lastLoadBook)", ["title=Load book, edited on device 4"]),
        ]
        for edit in edits {
            let made = try devices[edit.device].lib(["edit", edit.path] + edit.change)
            #expect(made.status == 0, "\(made)")
        }
        let pendingBefore = try devices.map { try $0.pending() }
        #expect(pendingBefore == [1, 1, 2, 2], "\(pendingBefore)")

        let restarted = try ServerProcess(database: db, demo: false, listen: "127.0.0.1:\(server.port)")
        defer { _ = restarted.stop() }
        var pushStatuses: [Int32] = []
        for device in devices {
            let push = try device.lib("push")
            pushStatuses.append(push.status)
            #expect(push.status == 0 || push.status == 3, "\(push)")
            let pull = try device.lib("pull")
            #expect(pull.status == 0 && pull.stdout.contains(": listed "), "the new epoch: every device lists again\n\(pull)")
        }

        // Every pending write: applied on the server, or waiting in `lib resolve`.
        var applied = 0, waiting: [String] = []
        for (index, device) in devices.enumerated() {
            #expect(try device.pending() == 0, "device \(index + 1) sent everything")
            let decisions = try device.lib("--json", "resolve")
            let items = try JSONSerialization.jsonObject(with: Data(decisions.stdout.utf8)) as? [String: Any]
            let paths = ((items?["items"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
            waiting += paths.map { "device \(index + 1): \($0)" }
            for edit in edits where edit.device == index && !paths.contains(edit.path) {
                let document = try Self.serverDocument(db, edit.path)
                let expected = edit.change.last!.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
                if document?.contains(expected) == true { applied += 1 } else { Issue.record("\(edit) is neither applied nor waiting: \(document ?? "absent")") }
            }
        }
        let lost = pendingBefore.reduce(0, +) - applied - waiting.count
        #expect(lost == 0, "applied \(applied), waiting \(waiting)")
        #expect(waiting.contains("device 2: books/b-3"), "a clash with a change the restore took back is a conflict: \(waiting)")

        // The load's writes acknowledged before the backup are all there.
        let restoredLoad = try TestDatabase.integer(db, "SELECT count(*) FROM books WHERE id LIKE 'load-%' AND CAST(substr(id, 6) AS INTEGER) < \(loadBefore)")
        #expect(restoredLoad == loadBefore)

        // Settle what waits (each device keeps its own version), then every device shows what the server has.
        for device in devices {
            for path in try Self.waitingPaths(device) {
                let settled = try device.lib("resolve", path, "--mine")
                #expect(settled.status == 0, "\(settled)")
            }
            #expect(try device.lib("push").status == 0)
        }
        let truth = try Self.serverBooks(db)
        for (index, device) in devices.enumerated() {
            #expect(try device.lib("pull").status == 0)
            let shown = try device.lib("--json", "get", "books", "--offline")
            #expect(shown.status == 0, "\(shown)")
            let books = try Self.canonical(items: shown.stdout)
            #expect(books == truth, "device \(index + 1) shows the server's books: \(books.count) vs \(truth.count)")
            #expect(try device.conflicts() == 0)
        }
        #expect(truth["b-3"]?.contains("The Hobbit (device 2)") == true, "device 2's choice was pushed")
        #expect(truth["b-1"]?.contains("(before the backup)") == true && truth["b-1"]?.contains("\"copies\":9") == true)

        Self.record("""
            \(TestDatabase.isPostgres ? "PostgreSQL (pg_dump -Fc)" : "SQLite (lib-server backup)"): \
            load \(String(format: "%.0f", loadReport.rate)) writes/s (\(loadReport.acknowledged) writes); \
            backup \(String(format: "%.2f", backupSeconds)) s with \(loadDuring) writes acknowledged meanwhile; \
            \(loadBefore) load writes acknowledged before it, all restored; server has \(truth.count) books; \
            pending \(pendingBefore.reduce(0, +)): applied \(applied), conflicts \(waiting.count), lost \(lost); pushes \(pushStatuses)
            """)
    }

    /// SQLite: `lib-server restore --from`. PostgreSQL: a new database from
    /// the dump (pg_restore), then `lib-server restore --db` for the epoch.
    static func restore(_ db: String, from backup: String, in dir: TemporaryDirectory) throws -> CommandResult {
        guard let base = TestDatabase.postgresBase else {
            return try CommandRunner.run(BuiltProducts.path("lib-server"), ["restore", "--db", db, "--from", backup])
        }
        let name = String(db[db.index(after: db.lastIndex(of: "/")!)...])
        for sql in ["DROP DATABASE \(name)", "CREATE DATABASE \(name)"] {
            let done = try CommandRunner.run(Self.postgresBin + "/psql", ["-q", "-v", "ON_ERROR_STOP=1", base, "-c", sql])
            try #require(done.status == 0, "\(done)")
        }
        let restored = try CommandRunner.run(Self.postgresBin + "/pg_restore", ["--no-owner", "-d", db, backup])
        try #require(restored.status == 0, "\(restored)")
        return try CommandRunner.run(BuiltProducts.path("lib-server"), ["restore", "--db", db])
    }

    static func waitingPaths(_ device: LibHarness) throws -> [String] {
        let decisions = try device.lib("--json", "resolve")
        let items = try JSONSerialization.jsonObject(with: Data(decisions.stdout.utf8)) as? [String: Any]
        return ((items?["items"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
    }

    static func serverDocument(_ db: String, _ path: String) throws -> String? {
        let id = path.replacingOccurrences(of: "books/", with: "")
        let text = try TestDatabase.query(db, "SELECT document FROM books WHERE id = '\(id)' AND document IS NOT NULL")
        return text.isEmpty ? nil : try canonical(text.trimmingCharacters(in: .newlines))
    }

    /// The server's books, id to canonical JSON.
    static func serverBooks(_ db: String) throws -> [String: String] {
        let lines = try TestDatabase.query(db, "SELECT id, document FROM books WHERE document IS NOT NULL").split(separator: "\n")
        var books: [String: String] = [:]
        for line in lines {
            let bar = try #require(line.firstIndex(of: "|"))
            books[String(line[..<bar])] = try canonical(String(line[line.index(after: bar)...]))
        }
        return books
    }

    /// `{"items": [...]}` as id to canonical JSON.
    static func canonical(items text: String) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        var books: [String: String] = [:]
        for item in (object?["items"] as? [[String: Any]]) ?? [] {
            let data = try JSONSerialization.data(withJSONObject: item, options: [.sortedKeys])
            books[item["id"] as? String ?? ""] = String(decoding: data, as: UTF8.self)
        }
        return books
    }

    static func canonical(_ document: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(document.utf8))
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The numbers for the note (LIB_BACKUP_NUMBERS names a file to append to).
    static func record(_ line: String) {
        guard let path = ProcessInfo.processInfo.environment["LIB_BACKUP_NUMBERS"] else { return }
        let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try? Data((old + line + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// Two writers creating books load-0, load-1, ... over HTTP as alice, at
/// `BackupRestoreTests.writesPerSecond` together, for `loadSeconds`.
final class Load: @unchecked Sendable {
    private let port: Int
    private let token: String
    private let next = Atomic<Int>(0)
    private let done = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    private let running = Atomic<Int>(0)
    private let started = Date()
    /// The writes answered 201 whose numbers all lower ones were answered too.
    private let contiguous = Mutex<(upTo: Int, answered: Set<Int>)>((0, []))

    init(port: Int) throws {
        self.port = port
        let client = try HTTPTestClient(port: port)
        let login = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                       body: #"{"username":"alice","password":"alice-demo"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(login.body)) as? [String: Any]
        token = try #require(object?["token"] as? String)
    }

    /// Every write numbered below this one was acknowledged.
    var acknowledged: Int { contiguous.withLock { $0.upTo } }

    func start() {
        let interval = 2 / BackupRestoreTests.writesPerSecond
        for writer in 0..<2 {
            running.add(1, ordering: .sequentiallyConsistent)
            Thread { [self] in
                defer { running.subtract(1, ordering: .sequentiallyConsistent) }
                guard let client = try? HTTPTestClient(port: port) else { failed.add(1, ordering: .relaxed); return }
                var due = started.addingTimeInterval(Double(writer) * interval / 2)
                while Date().timeIntervalSince(started) < BackupRestoreTests.loadSeconds {
                    let wait = due.timeIntervalSinceNow
                    if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                    due = due.addingTimeInterval(interval)
                    let n = next.add(1, ordering: .sequentiallyConsistent).oldValue
                    let answer = try? client.request("PUT", "/v1/books/load-\(n)", headers: [
                        ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                        ("If-None-Match", "*"), ("Idempotency-Key", UUID().uuidString)], body: #"{"title":"Load \#(n)"}"#)
                    guard answer?.status == 201 else { failed.add(1, ordering: .relaxed); return }
                    done.add(1, ordering: .relaxed)
                    contiguous.withLock { state in
                        state.answered.insert(n)
                        while state.answered.remove(state.upTo) != nil { state.upTo += 1 }
                    }
                }
            }.start()
        }
    }

    struct Report: CustomStringConvertible {
        let acknowledged: Int
        let failures: Int
        let rate: Double
        var description: String { "\(acknowledged) acknowledged, \(failures) failed, \(rate) writes/s" }
    }

    /// Waits for the writers to end.
    func finish() -> Report {
        while running.load(ordering: .sequentiallyConsistent) > 0 { usleep(5_000) }
        let count = done.load(ordering: .relaxed)
        return Report(acknowledged: acknowledged, failures: failed.load(ordering: .relaxed),
                      rate: Double(count) / max(Date().timeIntervalSince(started), 0.001))
    }
}
