import Foundation
import Testing
import TestSupport

/// Several accounts on one device (issue 24): every problem line names its
/// account, every hint works pasted as printed, and status and push say
/// what waits in the other accounts and at a logout.
@Suite struct AccountHintTests {
    /// One device signed in as bob and as alice, alice the current account.
    static func bobAndAliceOnOneDevice() throws -> (server: ServerProcess, device: LibHarness, alice: String, bob: String) {
        let server = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: server)
        try device.login("alice", to: server)
        let alice = device.account("alice", on: server), bob = device.account("bob", on: server)
        #expect(try device.lib("switch", alice).status == 0)
        return (server, device, alice, bob)
    }

    @Test func hintsNameTheAccountTheyActOnAndStatusNamesTheOthers() throws {
        let (server, device, alice, bob) = try Self.bobAndAliceOnOneDevice()
        // bob edits b-16 on this device; on another, alice changes it first.
        #expect(try device.lib("-A", bob, "get", "books/b-16").status == 0)
        #expect(try device.lib("-A", bob, "edit", "books/b-16", "title=Bob's").status == 0)
        let other = try LibHarness()
        try other.login("alice", to: server)
        #expect(try other.lib("edit", "books/b-16", "title=Alice's", "--push").status == 0)

        let push = try device.lib("push", "--all")
        #expect(push.status == 3, "\(push)")
        let hint = "run `lib -A \(bob) resolve books/b-16`"
        #expect(push.stderr.contains("\(bob): 1 conflict: books/b-16 — \(hint)"), "\(push)")
        // As printed: it shows bob's conflict, not "Nothing to resolve … for alice".
        let pasted = try device.lib("-A", bob, "resolve", "books/b-16")
        #expect(pasted.stdout.contains("title") && !pasted.stderr.contains("Nothing to resolve"), "\(pasted)")

        let status = try device.lib("status")
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("Nothing waiting to be sent."), "\(status)")
        #expect(status.stdout.contains("\(bob) also has 1 conflict: run `lib -A \(bob) resolve`."), "\(status)")
        let nothing = try device.lib("push")
        #expect(nothing.status == 0, "\(nothing)")
        #expect(nothing.stdout.contains("Nothing to push for \(alice)."), "\(nothing)")
        #expect(nothing.stdout.contains("\(bob) also has 1 conflict"), "\(nothing)")

        // bob's account, seen from bob's shell: the hints need no -A.
        let asBob = try device.lib("status", environment: ["LIB_ACCOUNT": bob])
        #expect(asBob.stdout.contains("run `lib resolve PATH`") && !asBob.stdout.contains("-A \(bob)"), "\(asBob)")

        // bob signs out with a write pending: status says where it went and how it comes back.
        #expect(try device.lib("-A", bob, "resolve", "books/b-16", "--mine").status == 0)
        let logout = try device.lib("logout", bob)
        #expect(logout.status == 0, "\(logout)")
        let after = try device.lib("status")
        #expect(after.stdout.contains("1 write set aside at a logout from \(server.baseURL)"), "\(after)")
        #expect(after.stdout.contains("it comes back at `lib login \(server.baseURL)` as that user."), "\(after)")
        #expect(try device.lib("logout").status == 0)
        let nobody = try device.lib("status")
        #expect(nobody.stdout.hasPrefix("Not signed in.") && nobody.stdout.contains("set aside at a logout"), "\(nobody)")
    }

    /// alice's push with only her own conflict left still says what waits
    /// in bob's account, as it does when alice has nothing at all.
    @Test func aPushWithItsOwnConflictStillNamesTheOtherAccountsWrites() throws {
        let (server, device, alice, bob) = try Self.bobAndAliceOnOneDevice()
        #expect(try device.lib("-A", bob, "get", "books/b-20").status == 0)
        #expect(try device.lib("-A", bob, "edit", "books/b-20", "title=Bob's").status == 0)
        // alice's own conflict on b-16: another device of hers changed it first.
        #expect(try device.lib("get", "books/b-16").status == 0)
        #expect(try device.lib("edit", "books/b-16", "title=Alice here").status == 0)
        let other = try LibHarness()
        try other.login("alice", to: server)
        #expect(try other.lib("edit", "books/b-16", "title=Alice there", "--push").status == 0)
        #expect(try device.lib("push").status == 3)

        let push = try device.lib("push")
        #expect(push.status == 3, "\(push)")
        #expect(push.stderr.contains("1 write of \(alice) still waits for you: run `lib resolve`."), "\(push)")
        #expect(push.stdout.contains("\(bob) also has 1 write pending: run `lib -A \(bob) push`.\n"), "\(push)")
    }

    /// Search's hint to pull names the account searched when a plain `lib`
    /// would act on another one.
    @Test func searchsPullHintNamesItsAccount() throws {
        let server = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: server)
        try device.login("alice", to: server)
        let bob = device.account("bob", on: server)
        #expect(try device.lib("-A", bob, "get", "books/b-7").status == 0)
        let asAlice = try device.lib("-A", bob, "search", "dune")
        #expect(asAlice.status == 0, "\(asAlice)")
        #expect(asAlice.stderr.contains("searched: run `lib -A \(bob) pull` for the whole library."), "\(asAlice)")
        let asBob = try device.lib("search", "dune", environment: ["LIB_ACCOUNT": bob])
        #expect(asBob.stderr.contains("searched: run `lib pull` for the whole library."), "\(asBob)")
    }
}
