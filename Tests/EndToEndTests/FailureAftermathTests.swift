import Foundation
import Testing
import TestSupport

/// What a failure leaves behind: a login that fails after storing its token
/// takes it back, and a damaged store is said to be damaged, never counted
/// as empty.
@Suite struct FailureAftermathTests {
    /// The disk fills between storing the token and writing the account's
    /// files: the new token is revoked on the server and removed from the
    /// keyring, and nothing says the user is signed in.
    @Test func aLoginThatFailsOnAFullDiskTakesItsTokenBack() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        let mount = try TemporaryDirectory("lib-e2e-full")
        let mounted = try CommandRunner.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mount.path])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? CommandRunner.run("/usr/bin/umount", [mount.path]) }
        _ = try CommandRunner.run("/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler", "bs=4k"])

        let login = try alice.lib(["login", server.baseURL, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n",
                                  environment: ["LIB_HOME": mount.path])
        #expect(login.status == 1, "\(login)")
        #expect(login.stderr.contains("The disk is full"), "\(login)")
        #expect(!login.stdout.contains("Signed in"), "\(login)")
        #expect((try? keyringToken(server: server, user: "alice")) == nil, "the token left the keyring")
        let live = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath,
            "SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'alice' AND s.revoked_at IS NULL"])
        #expect(live.stdout == "0\n", "every session of alice was revoked: \(live)")

        // With space again, the login works.
        unlink(mount.path + "/filler")
        let again = try alice.lib(["login", server.baseURL, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n",
                                  environment: ["LIB_HOME": mount.path])
        #expect(again.status == 0, "\(again)")
        #expect((try? keyringToken(server: server, user: "alice")) != nil)
    }

    @Test func aDamagedStoreIsSaidToBeDamagedWithHowToKeepItsWrites() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/d-1", "--create", "title=Unsent").status == 0)
        let account = alice.account("alice", on: server)
        let store = alice.storePath(account)
        for suffix in ["-wal", "-shm"] { unlink(store + suffix) }
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: store))

        let accounts = try alice.lib("switch")
        #expect(accounts.status == 1 && !accounts.stdout.contains("up to date"), "\(accounts)")
        #expect(accounts.stderr.contains("lib: The store of \(account) cannot be read: `lib status -A \(account)` says why"), "\(accounts)")
        for arguments in [["status"], ["status", "--porcelain"], ["status", "--short"]] {
            let status = try alice.lib(arguments)
            #expect(status.status == 1, "\(status)")
            #expect(!status.stdout.contains("Nothing waiting") && !status.stdout.contains("pending 0"), "\(status)")
            #expect(status.stderr.contains("lib: The store of \(account) is damaged: The file is not a lib database (\(store))."), "\(status)")
            #expect(status.stderr.contains("It may hold writes not yet sent: keep it (`mv \(store) \(store).damaged`, not rm)"), "\(status)")
        }
    }

    /// Noise in the middle of the file (the header still valid): the
    /// counters may read while the list of writes does not. No form of
    /// status shows the counters without the writes (issue 23: `pending 5`
    /// with no write lines, exit 0).
    @Test func noiseInTheMiddleOfTheStoreIsDamageNotAnEmptyList() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let title = String(repeating: "long title ", count: 40)
        for n in 0..<5 { #expect(try alice.lib("edit", "books/n-\(n)", "--create", "title=\(title)\(n)").status == 0) }
        try alice.cache((1...20).map { "books/b-\($0)" }, from: server, as: "alice")
        let account = alice.account("alice", on: server)
        let store = alice.storePath(account)
        #expect(try CommandRunner.run("/usr/bin/sqlite3", [store, "PRAGMA wal_checkpoint(TRUNCATE)"]).status == 0)
        for suffix in ["-wal", "-shm"] { unlink(store + suffix) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store)[.size] as? Int)
        let file = try #require(FileHandle(forWritingAtPath: store))
        try file.seek(toOffset: UInt64(max(4096, size / 2 - 4096)))
        file.write(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 13) }))
        try file.close()

        for arguments in [["status"], ["status", "--porcelain"], ["status", "--short"], ["status", "--json"]] {
            let status = try alice.lib(arguments)
            let listsAll = status.stdout.components(separatedBy: "books/n-").count - 1 == 5
            #expect(status.status != 0 || listsAll, "shows all of it or fails: \(status)")
            if status.status != 0 {
                #expect(status.stderr.contains("The store of \(account) is damaged"), "\(status)")
                #expect(status.stderr.contains("keep it (`mv \(store) \(store).damaged`, not rm)"), "\(status)")
                #expect(!status.stdout.contains("pending 5") && !status.stdout.contains("5 writes pending"), "no counters without their writes: \(status)")
            }
        }
        let accounts = try alice.lib("switch")
        #expect(accounts.status != 0 || accounts.stdout.contains("5 pending"), "\(accounts)")
    }
}
