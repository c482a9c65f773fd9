import Foundation
import Synchronization
import Testing
import TestSupport

/// The account chosen by context (issue 49): rules by directory (`lib
/// rule`), the order -A > LIB_ACCOUNT > rule > current, `account_source`,
/// and a `switch` that changes only the default, never what a running
/// command already chose.
@Suite struct AccountRulesTests {
    /// One home signed in as alice and bob (bob current), with a directory for each.
    func twoAccountsAndTwoDirectories() throws -> (LibHarness, ServerProcess, alice: String, bob: String) {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        try lib.login("bob", to: server)
        let alice = lib.home.path + "/alice-work", bob = lib.home.path + "/bob-work"
        try FileManager.default.createDirectory(atPath: alice + "/deep/er", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bob, withIntermediateDirectories: true)
        return (lib, server, alice, bob)
    }

    /// `lib ARGS` run in `directory`.
    func lib(_ lib: LibHarness, in directory: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try CommandRunner.run("/bin/sh", ["-c", "cd '\(directory)' && exec '\(BuiltProducts.path("lib"))' \(quoted)"],
                                     environment: lib.environment.merging(environment) { $1 })
    }

    func source(_ result: CommandResult) throws -> (account: String?, source: String?, rule: String?) {
        let entry = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return (entry?.first?["account"] as? String, entry?.first?["account_source"] as? String, entry?.first?["account_rule"] as? String)
    }

    @Test func theRuleOfTheDeepestDirectoryChoosesUnlessTheLineOrTheEnvironmentSays() throws {
        let (lib, server, aliceDir, bobDir) = try twoAccountsAndTwoDirectories()
        let alice = lib.account("alice", on: server), bob = lib.account("bob", on: server)
        #expect(try lib.lib("rule", aliceDir, "alice").status == 0)
        #expect(try lib.lib("rule", bobDir, server.baseURL).status == 2, "two accounts on that server: a URL is ambiguous")
        #expect(try lib.lib("rule", bobDir, "bob").status == 0)
        #expect(try lib.lib("rule", aliceDir + "/deep", "bob").status == 0)

        #expect(try source(self.lib(lib, in: aliceDir, ["status", "--json"])) == (alice, "rule", aliceDir))
        #expect(try source(self.lib(lib, in: aliceDir + "/deep/er", ["status", "--json"])) == (bob, "rule", aliceDir + "/deep"),
                "the deepest rule wins")
        #expect(try source(self.lib(lib, in: lib.home.path, ["status", "--json"])) == (bob, "current", nil), "no rule here: the default")
        #expect(try source(self.lib(lib, in: aliceDir, ["status", "--json"], environment: ["LIB_ACCOUNT": "bob"])) == (bob, "environment", nil))
        #expect(try source(self.lib(lib, in: aliceDir, ["-A", "bob", "status", "--json"])) == (bob, "option", nil))
        #expect(try source(self.lib(lib, in: bobDir, ["-A", "alice", "status", "--json"], environment: ["LIB_ACCOUNT": "bob"]))
                == (alice, "option", nil), "-A before LIB_ACCOUNT")
        let long = try self.lib(lib, in: aliceDir, ["status"])
        #expect(long.stdout.hasPrefix("On \(alice) (the rule for \(aliceDir))\n"), "\(long)")

        // A rule naming an account that is gone stops the command rather than act as another.
        #expect(try lib.lib("-A", "alice", "logout").status == 0)
        let stopped = try self.lib(lib, in: aliceDir, ["status"])
        #expect(stopped.status == 4, "\(stopped)")
        #expect(stopped.stderr == "lib: The rule for \(aliceDir) names \(alice), which is not signed in: sign in with `lib login`, "
                + "or remove the rule with `lib rule --remove \(aliceDir)`\n", "\(stopped)")
        #expect(try lib.lib("rule", "--remove", aliceDir).status == 0)
        #expect(try source(self.lib(lib, in: aliceDir, ["status", "--json"])) == (bob, "current", nil))
        #expect(try lib.lib("rule", "--remove", aliceDir).status == 1, "no such rule any more")
    }

    /// Two shells, each in its own directory with a rule, edit and push
    /// (1,000 edit+push pairs in all) while a third keeps switching the
    /// default between them: every write lands under its directory's
    /// account, none under the other.
    @Test func twoShellsInTwoDirectoriesNeverWriteUnderTheWrongAccount() throws {
        let (lib, server, aliceDir, bobDir) = try twoAccountsAndTwoDirectories()
        #expect(try lib.lib("rule", aliceDir, "alice").status == 0)
        #expect(try lib.lib("rule", bobDir, "bob").status == 0)
        #expect(try self.lib(lib, in: aliceDir, ["pull"]).status == 0)
        #expect(try self.lib(lib, in: bobDir, ["pull"]).status == 0)
        let rounds = Int(ProcessInfo.processInfo.environment["LIB_RULE_TRIAL_ROUNDS"] ?? "") ?? 500
        let libPath = BuiltProducts.path("lib")
        let done = lib.home.path + "/done"
        func shell(_ directory: String, books: ClosedRange<Int>) -> String {
            """
            cd '\(directory)' || exit 9
            i=0
            while [ $i -lt \(rounds) ]; do
              book=$(( \(books.lowerBound) + i % \(books.count) ))
              '\(libPath)' -q edit books/b-$book copies:=$i || exit 1
              '\(libPath)' -q push || exit 2
              i=$((i + 1))
            done
            """
        }
        let switcher = """
            while [ ! -e '\(done)' ]; do '\(libPath)' -q switch alice; '\(libPath)' -q switch bob; done
            """
        let results = Mutex<[String: CommandResult]>([:])
        let group = DispatchGroup()
        for (name, script) in [("alice", shell(aliceDir, books: 1...10)), ("bob", shell(bobDir, books: 11...20))] {
            OwnThread.start(in: group) {
                let result = try? CommandRunner.run("/bin/sh", ["-c", script], environment: lib.environment, timeout: 900)
                results.withLock { $0[name] = result }
            }
        }
        let switches = DispatchGroup()
        OwnThread.start(in: switches) { _ = try? CommandRunner.run("/bin/sh", ["-c", switcher], environment: lib.environment, timeout: 900) }
        group.wait()
        FileManager.default.createFile(atPath: done, contents: nil)
        switches.wait()
        for name in ["alice", "bob"] {
            let result = results.withLock { $0[name] }
            #expect(result?.status == 0, "\(name)'s shell: \(String(describing: result))")
        }

        let aliceBooks = try serverWriteOrder(server, user: "alice"), bobBooks = try serverWriteOrder(server, user: "bob")
        #expect(aliceBooks.count == rounds && bobBooks.count == rounds, "\(aliceBooks.count) and \(bobBooks.count) writes")
        let wrongForAlice = aliceBooks.filter { !(1...10).map { "b-\($0)" }.contains($0) }
        let wrongForBob = bobBooks.filter { !(11...20).map { "b-\($0)" }.contains($0) }
        #expect(wrongForAlice.isEmpty && wrongForBob.isEmpty, "writes under the wrong account: \(wrongForAlice) \(wrongForBob)")
        #expect(try lib.lib("status", "--all", "--porcelain").stdout.components(separatedBy: "pending 0\n").count == 3, "nothing left")
    }

    /// `lib push --wait 60` chose alice when it started; a `switch` to bob
    /// while it waits for the server changes the default only.
    @Test func aSwitchDuringAPushWaitDoesNotChangeThatPushsAccount() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("bob", to: server)
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/w-1", "--create", "title=Chosen at the start").status == 0)
        server.stop()
        let push = try lib.start(["push", "--wait", "60"])
        // The push is waiting for the server (a condition, not a wait for an event).
        sleep(2)
        #expect(try lib.lib("switch", "bob").status == 0)
        let restarted = try server.restarted()
        #expect(ChildProcessExit.wait(for: push, timeout: 90))
        push.waitUntilExit()
        #expect(push.terminationStatus == 0)
        #expect(try serverWriteOrder(restarted, user: "alice") == ["w-1"], "the push acted as alice, as it chose")
        #expect(try serverWriteOrder(restarted, user: "bob").isEmpty)
        #expect(try String(contentsOfFile: lib.home.path + "/config/current", encoding: .utf8) == lib.account("bob", on: restarted) + "\n")
    }
}
