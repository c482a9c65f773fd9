import Foundation
import LibJSON
import Testing
import TestSupport

/// The server's database out of reach: 503 with Retry-After, nothing of the
/// failure in the answer, and normal service once it is back (issue 23).
@Suite struct DatabaseOutageTests {
    /// Another process holding SQLite's write lock past the busy timeout
    /// (5 s): the write gets 503, reads go on, and the next write after the
    /// lock is gone works.
    @Test(.enabled(if: !TestDatabase.isPostgres, "SQLite only"))
    func aWriteLockHeldByAnotherProcessIs503AndReadsGoOn() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [demo.server.databasePath]
        let script = Pipe()
        holder.standardInput = script
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        script.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nUPDATE books SET version = version WHERE id = 'b-1';\n.shell sleep 7\nROLLBACK;\n".utf8))
        usleep(500_000)
        let started = Date()
        let locked = try alice.put("b-7", #"{"title":"Locked out"}"#, ifMatch: etag)
        #expect(locked.status == 503, "\(locked.status) \(locked.text)")
        #expect(locked.header("Retry-After") == "2")
        #expect(locked.problemDetail.contains("(incident i-") && !locked.text.contains("/") && !locked.text.lowercased().contains("locked"),
                "\(locked.text)")
        #expect(Date().timeIntervalSince(started) < 7, "answered within the busy timeout and a little")
        #expect(try alice.get("/v1/books/b-7").status == 200, "reads go on")
        try script.fileHandleForWriting.close()
        holder.waitUntilExit()
        let after = try alice.put("b-7", #"{"title":"In again"}"#, ifMatch: etag)
        #expect(after.status == 200, "\(after.text)")
    }

    @Test(.enabled(if: getuid() == 0 && !TestDatabase.isPostgres, "needs root to mount a tmpfs; SQLite only"))
    func aFullDiskUnderSQLiteIs503WithoutThePathAndReadsGoOn() throws {
        let mount = try TemporaryDirectory("lib-server-full")
        let mounted = try CommandRunner.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mount.path])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? CommandRunner.run("/usr/bin/umount", ["-l", mount.path]) }
        let server = try ServerProcess(database: mount.file("server.sqlite"))
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        let login = try HostileClientTests.login(client, "alice", "alice-demo")
        let token = try #require(login.json?["token"]?.stringValue)
        let alice = SignedInClient(client: client, token: token, userID: "")
        _ = try CommandRunner.run("/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler", "bs=4k"])

        var created: [String] = []
        var refusal: HTTPTestResponse?
        let title = String(repeating: "t", count: 400)
        for n in 0..<300 where refusal == nil {
            let answer = try alice.put("full-\(n)", "{\"title\":\"\(title)\",\"author\":\"\(title)\"}", create: true)
            if answer.status == 201 { created.append("full-\(n)") } else { refusal = answer }
        }
        let full = try #require(refusal, "the disk never filled")
        #expect(full.status == 503, "\(full.status) \(full.text)")
        #expect(full.header("Retry-After") == "2")
        #expect(full.problemDetail.hasPrefix("The library's database cannot be reached just now; try again in 2 s (incident i-"),
                "\(full.problemDetail)")
        #expect(!full.text.contains("/") && !full.text.lowercased().contains("sqlite") && !full.text.contains(mount.path), "\(full.text)")
        // Reads go on.
        #expect(try alice.get("/v1/books/b-7").status == 200)
        #expect(try alice.get("/v1/books").status == 200)

        unlink(mount.path + "/filler")
        let after = try alice.put("full-after", #"{"title":"After"}"#, create: true)
        #expect(after.status == 201, "normal again without a restart: \(after.text)")
        // Every write answered 201 is there; the refused one is not.
        for id in created.suffix(3) + ["full-after"] { #expect(try alice.get("/v1/books/\(id)").status == 200, "\(id)") }
        #expect(try alice.get("/v1/books/full-\(created.count)").status == 404)
    }
}
