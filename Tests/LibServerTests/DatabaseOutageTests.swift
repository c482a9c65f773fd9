import Foundation
import LibJSON
import Testing
import TestSupport

/// The server's database out of reach: 503 with Retry-After, nothing of the
/// failure in the answer, and normal service once it is back (issue 23).
@Suite struct DatabaseOutageTests {
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
