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
        let mounted = try CommandRunner.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mount.path])
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

        for arguments in [["status"], ["status", "--porcelain"], ["status", "--short"]] {
            let status = try alice.lib(arguments)
            #expect(status.status == 1, "\(status)")
            #expect(!status.stdout.contains("Nothing waiting") && !status.stdout.contains("pending 0"), "\(status)")
            #expect(status.stderr.contains("lib: The store of \(account) is damaged: The file is not a lib database (\(store))."), "\(status)")
            #expect(status.stderr.contains("It may hold writes not yet sent: keep it (`mv \(store) \(store).damaged`, not rm)"), "\(status)")
        }
    }
}
