import Foundation
import Testing
import TestSupport

/// `lib edit` and `lib push` against a real lib-server: order, exactly-once
/// delivery, conflicts, lost answers, coalescing, and what edit refuses.
@Suite struct EditPushTests {
    @Test func offlineEditsAcrossRestartsAreSentOnceInOrderAndAStaleOneConflicts() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        try alice.cache(["books/b-1", "books/b-2", "books/b-7"], from: server, as: "alice")

        server.stop()
        for (book, copies) in [("b-1", 11), ("b-2", 12)] {
            let edit = try alice.lib("edit", "books/\(book)", "copies:=\(copies)")
            #expect(edit.status == 0, "\(edit)")
        }
        #expect(try alice.lib("edit", "books/b-2", "copies:=12").stdout == "Nothing changed; books/b-2 is as it was.\n")
        let offline = try alice.lib("push")
        #expect(offline.status == 75, "\(offline)")
        #expect(offline.stderr.contains("2 writes are saved on this device."), "\(offline)")

        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(server.port)")
        let bob = try LibHarness()
        try bob.login("bob", to: restarted)
        let bobEdit = try bob.lib("edit", "books/b-7", "title=Dune (bob)", "--push")
        #expect(bobEdit.status == 0, "\(bobEdit)")

        // The title bob changed: a clash, under either protocol's rule.
        let stale = try alice.lib("edit", "books/b-7", "title=Dune (alice)")
        #expect(stale.stdout == "Saved on this device; 3 writes pending for \(account).\n", "\(stale)")
        let push = try alice.lib("push")
        #expect(push.status == 3, "\(push)")
        #expect(push.stdout == "Pushed 2 writes to 127.0.0.1:\(server.port) as \(account).\n", "\(push)")
        #expect(push.stderr == "lib: 1 conflict: books/b-7 — run `lib resolve books/b-7`.\n", "conflicts are problems: \(push)")

        let aliceID = try serverUserID(restarted, "alice")
        #expect(try serverWriteOrder(restarted, user: "alice") == ["b-1", "b-2"])
        for (book, copies) in [("b-1", 11), ("b-2", 12)] {
            let history = try serverHistory(restarted, book: book)
            #expect(history.count == 2 && history[1].updatedBy == aliceID, "\(history)")
            #expect(history.last?.document?.contains("\"copies\":\(copies)") == true, "\(history)")
        }
        #expect(try serverHistory(restarted, book: "b-7").map(\.updatedBy) == ["demo", try serverUserID(restarted, "bob")])

        let again = try alice.lib("push")
        #expect(again.status == 3, "\(again)")
        #expect(again.stdout == "Nothing to push for \(account).\n", "\(again)")
        #expect(again.stderr == "lib: 1 write of \(account) still waits for you: run `lib resolve`.\n", "\(again)")
        #expect(try serverWriteOrder(restarted, user: "alice") == ["b-1", "b-2"], "nothing is sent twice")
        #expect(try alice.conflicts() == 1)
    }

    @Test func lostAnswersAreReplayedWithTheSameKeyNeverAppliedTwice() throws {
        let server = try startDemoServer(arguments: ["--fault", "drop-after-commit,first-per-key"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let books = (1...6).map { "b-\($0)" }
        try alice.cache(books.map { "books/\($0)" }, from: server, as: "alice")
        for book in books.prefix(3) { #expect(try alice.lib("edit", "books/\(book)", "copies:=40").status == 0) }

        // Each write's first answer is lost: every push stops at it (75) and
        // the next one replays it under the same key.
        var statuses: [Int32] = []
        for _ in 0..<8 {
            let push = try alice.lib("push")
            statuses.append(push.status)
            if push.status == 0 { break }
            #expect(push.stderr.contains("The connection to 127.0.0.1 was lost."), "\(push)")
        }
        // An attempt on a fresh connection fails; on a reused one (after
        // the capability request) libcurl itself resends once (the same
        // keys, so a replay). The batch goes through in the end.
        #expect(!statuses.isEmpty && statuses.last == 0 && statuses.dropLast().allSatisfy { $0 == 75 }, "\(statuses)")

        // --wait retries by itself.
        for book in books.suffix(3) { #expect(try alice.lib("edit", "books/\(book)", "copies:=41").status == 0) }
        let waited = try alice.lib("-q", "push", "--wait", "30")
        #expect(waited.status == 0, "\(waited)")
        #expect(waited.stdout.isEmpty && waited.stderr.isEmpty, "cron form: silent when all went well\n\(waited)")

        #expect(try serverWriteOrder(server, user: "alice") == books)
        for book in books { #expect(try serverHistory(server, book: book).count == 2, "\(book) written once") }
        #expect(try alice.pending() == 0)
        #expect(try alice.conflicts() == 0, "a replay is not a conflict")
    }

    @Test func twoUnsentEditsOfOneBookBecomeOneWrite() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("edit", "books/b-7", "copies:=4").stdout == "Saved on this device; 1 write pending for \(account).\n")
        #expect(try alice.lib("edit", "books/b-7", "title=Dune Messiah").stdout == "Saved on this device; 1 write pending for \(account).\n")
        let push = try alice.lib("push")
        #expect(push.stdout == "Pushed 1 write to 127.0.0.1:\(server.port) as \(account).\n", "\(push)")
        let history = try serverHistory(server, book: "b-7")
        #expect(history.count == 2, "\(history)")
        #expect(history.last?.document?.contains("\"title\":\"Dune Messiah\"") == true)
        #expect(history.last?.document?.contains("\"copies\":4") == true)
    }

    @Test func createsAndDeletesChainTheirPreconditions() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/n-1", "--create", "title=Emma", "tags:=[\"novel\"]").status == 0)
        #expect(try alice.lib("edit", "books/n-1", "year:=1815", "--push").status == 0, "merged into the unsent create")
        #expect(try alice.lib("edit", "books/n-1", "copies:=2").status == 0)
        #expect(try alice.lib("edit", "books/n-1", "--delete").status == 0, "merged into the unsent edit: a DELETE with its If-Match")
        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(try serverHistory(server, book: "n-1").map { $0.document == nil } == [false, true])
        #expect(try alice.lib("edit", "books/n-2", "--create", "title=Gone", "--push").status == 0)
        #expect(try alice.lib("edit", "books/n-2", "--delete").stdout.hasPrefix("Saved on this device; 1 write pending"))
        #expect(try alice.lib("edit", "books/n-3", "--create", "title=Never").status == 0)
        #expect(try alice.lib("edit", "books/n-3", "--delete").stdout.hasPrefix("Dropped the unsent creation of books/n-3; 1 write pending"))

        try alice.cache(["books/b-7"], from: server, as: "alice")
        let refused = try alice.lib("edit", "books/b-7", "--create", "title=Other")
        #expect(refused.status == 1 && refused.stderr.contains("already exists"), "\(refused)")
        let unknown = try alice.lib("edit", "books/b-8", "--create", "title=Other")
        #expect(unknown.status == 0, "not cached: the server decides (412 at push)\n\(unknown)")
        let conflict = try alice.lib("push")
        #expect(conflict.status == 3 && conflict.stdout.contains("Pushed 1 write ") && conflict.stderr.contains("1 conflict: books/b-8"), "\(conflict)")
    }

    @Test func editRefusesWhatTheServerWouldRefuseAndSavesNothing() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-7", "copies:=2").status == 0)

        let cases: [([String], Int32, String)] = [
            (["books/b-7", "pages:=300"], 1, "lib: books/b-7 was not saved: 'pages' is not a field of a book"),
            (["books/b-7", "year=1965"], 1, "lib: books/b-7 was not saved: 'year' must be an integer, not string; to give year as a number, write `year:=1965`."),
            (["books/b-7", "copies:=-1"], 1, "'copies' must be 0 or more"),
            (["books/b-7", "tags:=[1]"], 1, "'tags' must be an array of strings (item 0 is integer)"),
            (["books/b-7", "id=b-8"], 1, "'id' must be \"b-7\", the id in the path"),
            (["books/b-7", "title="], 1, "'title' must be 1 to 500 characters long (it has 0)"),
            (["books/b-7", "copies:={"], 2, "lib: 'copies:={' is not valid JSON"),
            (["books", "copies:=1"], 2, "lib: 'books' is a collection; edit one of its documents"),
            (["books/b-7", "--delete", "copies:=1"], 2, "--delete takes no FIELD=VALUE assignments"),
        ]
        for (arguments, status, message) in cases {
            let result = try alice.lib(["edit"] + arguments)
            #expect(result.status == status, "\(result)")
            #expect(result.stderr.contains(message), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        #expect(try alice.pending() == 1, "the earlier write is intact, nothing added")

        server.stop()
        let unseen = try alice.lib("edit", "books/b-9", "copies:=1")
        #expect(unseen.status == 75, "\(unseen)")
        #expect(unseen.stderr.contains("books/b-9 is not on this device yet and couldn't be fetched: Couldn't reach 127.0.0.1:\(server.port): connection refused"), "\(unseen)")
        #expect(unseen.stderr.contains("Run `lib get books/b-9` while online"), "\(unseen)")
        #expect(try alice.pending() == 1)
    }

    @Test func theEditorLoopsOnInvalidJSONAndAnUnchangedFileChangesNothing() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let scripts = try TemporaryDirectory("lib-e2e-editor")

        // Always invalid: shown once with the error on top, then cancelled.
        try writeScript(scripts.file("broken"), "cp \"$1\" \(scripts.file("seen-broken")).$$; printf '{\"title\": ' > \"$1\"\n")
        let broken = try alice.lib(["edit", "books/b-7"], environment: ["EDITOR": scripts.file("broken"), "VISUAL": ""])
        #expect(broken.status == 1, "\(broken)")
        #expect(broken.stderr.hasPrefix("lib: Edit cancelled; nothing was changed. The file is not valid JSON"), "\(broken)")
        #expect(try alice.pending() == 0)

        // Invalid, then fixed: the second round shows the error as comments.
        try writeScript(scripts.file("fixes"), """
            n=$(cat \(scripts.file("count")) 2>/dev/null || echo 0); n=$((n+1)); echo $n > \(scripts.file("count"))
            cp "$1" \(scripts.file("round")).$n
            if [ $n = 1 ]; then printf '{"title": "Dune",' > "$1"; else sed -i 's/"copies": 3/"copies": 8/' "$1"; printf '{"id":"b-7","title":"Dune","copies":8}' > "$1"; fi

            """)
        let fixed = try alice.lib(["edit", "books/b-7"], environment: ["EDITOR": scripts.file("fixes")])
        #expect(fixed.status == 0, "\(fixed)")
        let second = try String(contentsOfFile: scripts.file("round") + ".2", encoding: .utf8)
        #expect(second.hasPrefix("// The file is not valid JSON: unexpected end of input at line 3, column 18.\n// Fix it"), "\(second)")
        #expect(second.split(separator: "\n", omittingEmptySubsequences: false)[2] == "{\"title\": \"Dune\",", "line 3 is the line the error names\n\(second)")
        #expect(second.contains("{\"title\": \"Dune\","), "the user's text is kept\n\(second)")
        let first = try String(contentsOfFile: scripts.file("round") + ".1", encoding: .utf8)
        #expect(first.contains("\"author\": \"Frank Herbert\""), "pretty JSON of the cached copy\n\(first)")

        // Unchanged, or emptied: nothing.
        try writeScript(scripts.file("noop"), "true\n")
        let unchanged = try alice.lib(["edit", "books/b-7"], environment: ["EDITOR": scripts.file("noop")])
        #expect(unchanged.status == 0 && unchanged.stdout == "Nothing changed; books/b-7 is as it was.\n", "\(unchanged)")
        try writeScript(scripts.file("empty"), ": > \"$1\"\n")
        let emptied = try alice.lib(["edit", "books/b-7"], environment: ["EDITOR": scripts.file("empty")])
        #expect(emptied.status == 0 && emptied.stdout.hasPrefix("Nothing changed"), "\(emptied)")
        #expect(try alice.pending() == 1)
        _ = scripts
    }

    @Test func theEditorNeverSeesTheToken() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let scripts = try TemporaryDirectory("lib-e2e-editor")
        try writeScript(scripts.file("spy"), """
            env > \(scripts.file("env")); echo "$0 $@" > \(scripts.file("argv"))
            for file; do :; done
            ls -l "$file" > \(scripts.file("mode")); ls -ld "$(dirname "$file")" >> \(scripts.file("mode"))
            sed -i 's/"copies": 3/"copies": 9/' "$file"

            """)
        // Not cached: edit fetches it first, so the token is in lib's memory.
        let result = try alice.lib(["edit", "books/b-7"], environment: ["VISUAL": scripts.file("spy") + " --wait"])
        #expect(result.status == 0, "\(result)")
        let token = try keyringToken(server: server, user: "alice")
        for name in ["env", "argv"] {
            let text = try String(contentsOfFile: scripts.file(name), encoding: .utf8)
            #expect(!text.isEmpty && !text.contains(token), "the token is in the editor's \(name)")
        }
        #expect(try String(contentsOfFile: scripts.file("argv"), encoding: .utf8).contains("--wait"))
        let modes = try String(contentsOfFile: scripts.file("mode"), encoding: .utf8)
        #expect(modes.hasPrefix("-rw------- "), "\(modes)")
        #expect(modes.contains("\ndrwx------ "), "\(modes)")
        #expect(try alice.pending() == 1)
        _ = scripts
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func aFullDiskLeavesTheOutboxAsItWas() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7", "books/b-8"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-8", "copies:=1").status == 0)

        let mount = try TemporaryDirectory("lib-e2e-full")
        let mounted = try CommandRunner.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mount.path])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? CommandRunner.run("/usr/bin/umount", [mount.path]) }
        let copied = try CommandRunner.run("/bin/cp", ["-a", alice.home.path + "/.", mount.path])
        try #require(copied.status == 0, "\(copied)")
        _ = try CommandRunner.run("/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler", "bs=4k"])
        let environment = ["LIB_HOME": mount.path]

        let big = String(repeating: "x", count: 400)
        let full = try alice.lib(["edit", "books/b-7", "title=\(big)", "author=\(big)"], environment: environment)
        #expect(full.status == 1, "\(full)")
        #expect(full.stderr.contains("The disk is full: free some space and try again; nothing was changed."), "\(full)")
        #expect(!full.stderr.contains("Saved"), "\(full)")

        unlink(mount.path + "/filler")
        let porcelain = try alice.lib(["status", "--porcelain"], environment: environment).stdout
        #expect(porcelain.contains("pending 1\n"), "\(porcelain)")
        let check = try CommandRunner.run("/usr/bin/sqlite3", [mount.path + "/data/accounts/\(alice.account("alice", on: server))/store.sqlite", "PRAGMA integrity_check"])
        #expect(check.stdout == "ok\n", "\(check)")
        let push = try alice.lib(["push"], environment: environment)
        #expect(push.status == 0 && push.stdout.hasPrefix("Pushed 1 write "), "\(push)")
        #expect(try serverHistory(server, book: "b-7").count == 1, "the failed edit was never saved")
    }
}
