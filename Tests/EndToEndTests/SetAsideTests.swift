import Foundation
import LibJSON
import Testing
import TestSupport

/// An outbox belongs to one identity: set aside at logout, never flushed
/// under another account, restored in order for the same identity.
@Suite struct SetAsideTests {
    @Test func aliceWritesNeverGoOutAsBobAndComeBackForAlice() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        let url = server.baseURL
        let port = server.port
        server.stop()

        // Offline: two edits wait in alice's outbox.
        for (book, title) in [("b-7", "Dune (alice 1)"), ("b-8", "Beloved (alice 2)")] {
            let edit = try lib.lib("edit", "books/\(book)", "title=\(title)")
            #expect(edit.status == 0, "\(edit)")
        }
        let logout = try lib.lib("logout")
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stdout.contains("Set aside 2 writes not sent yet"), "\(logout)")

        // The server is back; bob signs in on the same machine and pushes.
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(port)")
        try lib.login("bob", to: restarted)
        let bobPush = try lib.lib("push")
        #expect(bobPush.status == 0, "\(bobPush)")
        let aliceID = try serverUserID(restarted, "alice"), bobID = try serverUserID(restarted, "bob")
        for book in ["b-7", "b-8"] {
            let writers = try serverHistory(restarted, book: book).dropFirst().map(\.updatedBy)
            #expect(writers.isEmpty, "\(book) was written by \(writers) while alice was signed out")
        }
        let status = try lib.lib("status", "--porcelain")
        #expect(status.stdout.hasPrefix("account bob@127.0.0.1:\(port)\n"), "\(status)")
        #expect(try lib.lib("status", "--prompt").stdout == "", "nothing waits for bob")

        // alice again, on the same server: her writes come back, in order, as hers.
        let login = try lib.lib("login", url, "--user", "alice", "--password-stdin", "--restore", stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        #expect(login.stdout.contains("Restored 2 writes"), "\(login)")
        let push = try lib.lib("push")
        #expect(push.status == 0, "\(push)")
        let b7 = try serverHistory(restarted, book: "b-7"), b8 = try serverHistory(restarted, book: "b-8")
        #expect(b7.dropFirst().map(\.updatedBy) == [aliceID])
        #expect(b8.dropFirst().map(\.updatedBy) == [aliceID])
        #expect(b7.last?.document?.contains("Dune (alice 1)") == true)
        let order = try CommandRunner.run("/usr/bin/sqlite3", [restarted.databasePath,
            "SELECT book_id FROM history WHERE updated_by = '\(aliceID)' ORDER BY at, rowid"])
        #expect(order.stdout == "b-7\nb-8\n", "pushed in the order they were made")
        #expect(bobID != aliceID)
    }

    @Test func anotherIdentityNeverGetsTheSetAsideWrites() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "copies:=9").status == 0)
        // Logged out while the write is still pending (the server never saw it).
        server.stop()
        #expect(try lib.lib("logout").status == 0)
        let again = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(server.port)")
        let bob = try lib.lib("login", again.baseURL, "--user", "bob", "--password-stdin", "--restore", stdin: "bob-demo\n")
        #expect(bob.status == 0)
        #expect(!bob.stdout.contains("Restored"), "\(bob)")
        #expect(try lib.lib("status", "--porcelain").stdout.contains("pending 0\n"))
        #expect(try serverHistory(again, book: "b-7").count == 1)
    }

    /// Logout racing a push of the same account, at random moments: nothing
    /// of alice's goes out once logout has returned, nothing is lost (set
    /// aside + applied = enqueued), nothing is applied twice.
    @Test func logoutDuringPush() throws {
        let trials = ProcessInfo.processInfo.environment["LIB_STRESS"] == nil ? 5 : 50
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<trials {
            let server = try startDemoServer(arguments: ["--fault", "delay=40,method=PUT"])
            let lib = try LibHarness()
            try lib.login("alice", to: server)
            #expect(try lib.lib("get", "books").status == 0)
            let writes = 8
            for n in 1...writes {
                let edit = try lib.lib("edit", "books/b-\(n)", "title=trial \(trial) write \(n)")
                #expect(edit.status == 0, "\(edit)")
            }
            let push = Process()
            push.executableURL = URL(fileURLWithPath: BuiltProducts.path("lib"))
            push.arguments = ["push"]
            push.environment = lib.environment
            push.standardOutput = FileHandle.nullDevice
            push.standardError = FileHandle.nullDevice
            try push.run()
            usleep(UInt32.random(in: 0...400_000, using: &generator))
            let logout = try lib.lib("logout")
            let loggedOutAt = Date().timeIntervalSince1970
            #expect(logout.status == 0, "\(logout)")
            push.waitUntilExit()

            let aliceID = try serverUserID(server, "alice")
            let rows = try CommandRunner.run("/usr/bin/sqlite3", ["-separator", "\t", server.databasePath,
                "SELECT book_id, at, document FROM history WHERE updated_by = '\(aliceID)'"]).stdout
                .split(separator: "\n").map { $0.split(separator: "\t", maxSplits: 2).map(String.init) }
            let applied = rows.count
            let late = rows.filter { row in
                guard row.count > 1, let at = isoSeconds(row[1]) else { return true }
                return at > loggedOutAt + 0.05
            }
            #expect(late.isEmpty, "trial \(trial): written after logout returned: \(late)")
            let titles = rows.compactMap { $0.count > 2 ? $0[2] : nil }
            #expect(Set(titles).count == titles.count, "trial \(trial): a write was applied twice")
            let setAside = try setAsideCount(lib)
            #expect(applied + setAside == writes, "trial \(trial): applied \(applied) + set aside \(setAside) != \(writes)\n\(logout)")
        }
    }
}

/// Writes waiting in every set-aside outbox under the harness's LIB_HOME.
func setAsideCount(_ lib: LibHarness) throws -> Int {
    let files = lib.files().filter { $0.contains("/set-aside/") && $0.hasSuffix(".sqlite") }
    return try files.reduce(0) { total, file in
        let n = try CommandRunner.run("/usr/bin/sqlite3", [file, "SELECT count(*) FROM outbox"]).stdout
        return total + (Int(n.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }
}

/// Seconds since 1970 of the server's `2026-11-29T19:16:21.177Z` timestamps.
func isoSeconds(_ text: String) -> Double? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)?.timeIntervalSince1970
}
