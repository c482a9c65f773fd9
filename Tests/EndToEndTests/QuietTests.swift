import Foundation
import Testing
import TestSupport

/// `-q` for cron: nothing for what heals by itself, something for what
/// needs a person, and a line once writes have waited too long (issue 12).
@Suite struct QuietTests {
    @Test func quietPushIsSilentWhenAllIsWellAndWhenTheServerIsDown() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/q-1", "--create", "title=Quiet").status == 0)
        let pushed = try lib.lib("push", "-q")
        #expect(pushed.status == 0 && pushed.stdout.isEmpty && pushed.stderr.isEmpty, "\(pushed)")

        #expect(try lib.lib("edit", "books/q-2", "--create", "title=Quiet").status == 0)
        server.stop()
        let down = try lib.lib("-q", "push", "--wait", "1s")
        #expect(down.status == 75, "\(down)")
        #expect(down.stdout.isEmpty && down.stderr.isEmpty, "nothing at all: \(down)")
        #expect(try lib.pending() == 1)
    }

    @Test func quietGetFallsBackWithoutALabel() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        server.stop()
        let loud = try lib.lib("get", "books/b-7")
        #expect(loud.status == 0 && loud.stderr.contains("Showing the copy"), "\(loud)")
        let quiet = try lib.lib("get", "books/b-7", "-q")
        #expect(quiet.status == 0 && quiet.stdout.contains("Dune") && quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test func quietPushSpeaksOnceTheOldestWriteHasWaitedPastTheThreshold() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/q-3", "--create", "title=Old").status == 0)
        try lib.sql(lib.account("alice", on: server), "UPDATE outbox SET created_at = created_at - 600")
        server.stop()
        let fresh = try lib.lib(["push", "-q"], environment: ["LIB_QUIET_AFTER": "1h"])
        #expect(fresh.status == 75 && fresh.stderr.isEmpty, "under the threshold: \(fresh)")
        let old = try lib.lib(["push", "-q"], environment: ["LIB_QUIET_AFTER": "5m"])
        #expect(old.status == 75, "\(old)")
        #expect(old.stdout.isEmpty, "\(old)")
        let lines = old.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(old)")
        #expect(old.stderr.contains("connection refused") && old.stderr.contains("1 write is saved on this device"), "\(old)")
    }

    @Test func quietPushNamesAConflictAndExitsThree() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        #expect(try bob.lib("edit", "books/b-7", "title=Dune (bob)", "--push").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "title=Dune (alice)").status == 0)
        let push = try alice.lib("push", "-q")
        #expect(push.status == 3, "\(push)")
        #expect(push.stdout.isEmpty, "\(push)")
        #expect(push.stderr == "lib: 1 conflict: books/b-7 — run `lib resolve books/b-7`.\n", "\(push)")
    }

    /// Under `--all` with no session bus, each account's keyring failure is
    /// said once, naming the account and what it keeps.
    @Test func pushAllWithoutABusNamesEachAccountOnce() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        try lib.login("bob", to: server)
        let alice = lib.account("alice", on: server), bob = lib.account("bob", on: server)
        #expect(try lib.lib("-A", "alice", "edit", "books/a-1", "--create", "title=A").status == 0)
        #expect(try lib.lib("-A", "bob", "edit", "books/b-91", "--create", "title=B").status == 0)
        #expect(try lib.lib("-A", "bob", "edit", "books/b-92", "--create", "title=B").status == 0)
        let emptyRuntime = try TemporaryDirectory()
        // In another session: no copy of the tokens cached in its kernel keyring.
        let push = try lib.libInAnotherSession(["push", "--all"], environment: [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(emptyRuntime.path)/no-bus", "XDG_RUNTIME_DIR": emptyRuntime.path,
        ])
        #expect(push.status == 4, "\(push)")
        let lines = push.stderr.split(separator: "\n")
        #expect(lines.count == 2, "one line per account: \(push)")
        #expect(lines.filter { $0.hasPrefix("lib: \(alice): ") && $0.contains("1 write is saved on this device") }.count == 1, "\(push)")
        #expect(lines.filter { $0.hasPrefix("lib: \(bob): ") && $0.contains("2 writes are saved on this device") }.count == 1, "\(push)")
        #expect(push.stderr.contains("no D-Bus session bus"), "\(push)")
    }
}
