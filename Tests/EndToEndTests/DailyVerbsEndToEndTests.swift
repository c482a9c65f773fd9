import Foundation
import LibJSON
import Testing
import TestSupport

/// The daily verbs (issue 26) with the real `lib` and `lib-server` over
/// real sockets: `log` (also with the server down), `log PATH` with the
/// server's history, `revert` and its conflict, `new` offline, `push -n`,
/// the prompt with two accounts, `status -s` and `restore`.
@Suite struct DailyVerbsEndToEndTests {
    /// The title of a book as the server's database has it now.
    func serverTitle(_ server: ServerProcess, _ book: String) throws -> String? {
        try serverHistory(server, book: book).last?.document.flatMap { try? JSONParser.parse($0) }?["title"]?.stringValue
    }

    func validated(_ result: CommandResult, _ schema: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        try JSONSchemaValidator.validate(result.stdout, against: schema)
        return try JSONParser.parse(result.stdout)
    }

    @Test func logListsTwoPushedWritesNewestFirstAlsoWithTheServerDown() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-1", "books/b-2"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-1", "title=First").status == 0)
        #expect(try alice.lib("push").status == 0)
        #expect(try alice.lib("edit", "books/b-2", "copies:=7").status == 0)
        #expect(try alice.lib("push").status == 0)
        let etag1 = try #require(try serverETag(server, "b-1")), etag2 = try #require(try serverETag(server, "b-2"))

        for state in ["up", "down"] {
            if state == "down" { server.stop() }
            let log = try alice.lib("log")
            #expect(log.status == 0, "\(state): \(log)")
            let lines = log.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(state): \(log)")
            #expect(lines.count == 3 && lines[1].hasSuffix("change  books/b-2  copies=7  -> \(etag2)"), "\(state): \(log)")
            #expect(lines.count == 3 && lines[2].hasSuffix("change  books/b-1  title=\"First\"  -> \(etag1)"), "\(state): \(log)")
            let json = try validated(try alice.lib("--json", "log"), "log")
            #expect(json["pushed"]?.arrayValue?.map { $0["path"] } == ["books/b-2", "books/b-1"])
        }
        let offline = try alice.lib("log", "books/b-1")
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.stdout.contains("title=\"First\""), "\(offline)")
        #expect(offline.stdout.contains("The server history of books/b-1 is missing: Couldn't reach 127.0.0.1:\(server.port)"), "\(offline)")
        let json = try validated(try alice.lib("--json", "log", "books/b-1"), "log")
        #expect(json["server_history"] == .null && json["server_history_missing"]?.stringValue != nil)
    }

    @Test func logOfABookShowsBobsChangeAndRevertPutsBackOrConflicts() throws {
        let server = try startDemoServer()
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: server)
        try bob.login("bob", to: server)
        try alice.cache(["books/b-9", "books/b-10"], from: server, as: "alice")
        let original9 = try #require(try serverTitle(server, "b-9")), original10 = try #require(try serverTitle(server, "b-10"))

        // A revert nobody got in the way of: the title is back on the server.
        #expect(try alice.lib("edit", "books/b-10", "title=Alice's").status == 0)
        #expect(try alice.lib("push").status == 0)
        let revert = try alice.lib("revert", "books/b-10")
        #expect(revert.status == 0, "\(revert)")
        #expect(revert.stdout.contains("Queued the revert of your change of books/b-10"), "\(revert)")
        #expect(try alice.lib("push").status == 0)
        #expect(try serverTitle(server, "b-10") == original10)
        // Logged as a revert, with a date, in the one form the server's history uses too.
        let reverted = try alice.lib(["log", "books/b-10"], environment: ["TZ": "UTC"])
        let stamp = #/\d{4}-\d\d-\d\d \d\d:\d\d/#
        let revertLine = try #require(reverted.stdout.split(separator: "\n").dropFirst().first.map(String.init), "\(reverted)")
        #expect(revertLine.wholeMatch(of: #/  \d{4}-\d\d-\d\d \d\d:\d\d  revert  books\/b-10  title=".*"  -> ".*"/#) != nil, "\(reverted)")
        #expect(revertLine.contains("title=\(JSONValue.string(original10).serialized())"), "\(reverted)")
        let historyLines = reverted.stdout.split(separator: "\n").filter { $0.hasPrefix("  v") }
        #expect(historyLines.count == 3 && historyLines.allSatisfy { $0.dropFirst(2).split(separator: " ")[1].wholeMatch(of: #/\d{4}-\d\d-\d\d/#) != nil
                                                                     && $0.contains(stamp) && !$0.contains("Z  ") }, "\(reverted)")
        let revertJSON = try validated(try alice.lib("--json", "log", "books/b-10"), "log")
        #expect(revertJSON["pushed"]?.arrayValue?.map { $0["revert"] } == [true, false])

        // Bob changed the field since: the push is a conflict and bob's value stays.
        #expect(try alice.lib("edit", "books/b-9", "title=Alice's").status == 0)
        #expect(try alice.lib("push").status == 0)
        try bob.cache(["books/b-9"], from: server, as: "bob")
        #expect(try bob.lib("edit", "books/b-9", "title=Bob's", "--push").status == 0)
        let log = try alice.lib("log", "books/b-9")
        #expect(log.status == 0, "\(log)")
        #expect(log.stdout.contains("  bob  change  title: \"Alice's\" -> \"Bob's\"\n"), "\(log)")
        #expect(log.stdout.contains("  alice  change  title: \(JSONValue.string(original9).serialized()) -> \"Alice's\"\n"), "\(log)")
        let json = try validated(try alice.lib("--json", "log", "books/b-9"), "log")
        #expect(json["server_history"]?.arrayValue?.first?["updated_by_name"] == "bob")

        let queued = try validated(try alice.lib("--json", "revert", "books/b-9"), "revert")
        #expect(queued["outcome"] == "queued")
        let before = try serverHistory(server, book: "b-9").count
        let push = try alice.lib("push")
        #expect(push.status == 3, "\(push)")
        #expect(push.stderr.contains("1 conflict: books/b-9"), "\(push)")
        #expect(try serverTitle(server, "b-9") == "Bob's")
        #expect(try serverHistory(server, book: "b-9").count == before, "nothing overwritten")
    }

    @Test func twoNewOfflineMakeTwoPathsAndAPushCreatesBoth() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        server.stop()
        let first = try alice.lib("new", "books", "title=Emma", "author=Jane Austen")
        let second = try validated(try alice.lib("--json", "new", "books", "title=Persuasion"), "new")
        #expect(first.status == 0, "\(first)")
        let paths = [first.stdout.trimmingCharacters(in: .newlines), second["path"]?.stringValue ?? ""]
        #expect(paths[0] != paths[1] && paths.allSatisfy { $0.hasPrefix("books/") }, "\(paths)")
        #expect(try alice.pending() == 2)
        let restarted = try server.restarted()
        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        let aliceID = try serverUserID(restarted, "alice")
        for (path, title) in zip(paths, ["Emma", "Persuasion"]) {
            let history = try serverHistory(restarted, book: String(path.dropFirst("books/".count)))
            #expect(history.count == 1 && history[0].version == 1 && history[0].updatedBy == aliceID, "\(path): \(history)")
            #expect(history.first?.document?.contains("\"title\":\"\(title)\"") == true, "\(history)")
        }
    }

    @Test func newWithoutFieldsOpensTheEditorAsEditDoes() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let scripts = try TemporaryDirectory("lib-e2e-editor")
        try writeScript(scripts.file("title"), "sed -i 's/\\(\"id\": \"[0-9a-z]*\"\\)/\\1, \"title\": \"From the editor\"/' \"$1\"\n")
        let made = try alice.lib(["new", "books"], environment: ["EDITOR": scripts.file("title"), "VISUAL": ""])
        #expect(made.status == 0, "\(made)")
        let path = made.stdout.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix("books/") && path.count == "books/".count + 26, "\(made)")
        try writeScript(scripts.file("noop"), "true\n")
        let unchanged = try alice.lib(["new", "books"], environment: ["EDITOR": scripts.file("noop"), "VISUAL": ""])
        #expect(unchanged.status == 0 && unchanged.stdout.isEmpty, "an untouched file saves nothing: \(unchanged)")
        #expect(try alice.pending() == 1)
        #expect(try alice.lib("push").status == 0)
        let history = try serverHistory(server, book: String(path.dropFirst("books/".count)))
        #expect(history.count == 1 && history[0].document?.contains("\"title\":\"From the editor\"") == true, "\(history)")
    }

    @Test func aDryRunNamesThePendingWriteAndTheServerDoesNotMove() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-3"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-3", "copies:=8").status == 0)
        let history = try serverHistory(server, book: "b-3").count
        let status = try alice.lib("status", "--porcelain").stdout
        let run = try alice.lib("push", "-n")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("1. PUT books/b-3 change copies=8 (If-Match: "), "\(run)")
        #expect(run.stdout.contains("1 write would be sent."), "\(run)")
        _ = try validated(try alice.lib("--json", "push", "--dry-run"), "push-dry-run")
        #expect(try serverHistory(server, book: "b-3").count == history, "the server's history did not move")
        #expect(try alice.lib("status", "--porcelain").stdout == status, "nothing changed here either")
        server.stop()
        #expect(try alice.lib("push", "-n").stdout == run.stdout, "the same offline")
    }

    /// What waits in bob's account is added up after alice's segment (issue 37).
    @Test func thePromptShowsBobsWaitingWriteWhileAliceIsCurrent() throws {
        let server = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: server)
        try device.cache(["books/b-4"], from: server, as: "bob")
        #expect(try device.lib("edit", "books/b-4", "copies:=1").status == 0)
        try device.login("alice", to: server)
        #expect(try device.lib("status", "--prompt", environment: ["LANG": "C.UTF-8"]).stdout == "alice · ↑1\n",
                "never a bare '· ↑1': alice's name leads")
        #expect(try snippetLines(device) == ["alice · ↑1"], "the snippets too")
        try device.cache(["books/b-5"], from: server, as: "alice")
        #expect(try device.lib("edit", "books/b-5", "copies:=2").status == 0)
        #expect(try device.lib("edit", "books/b-6", "--create", "title=Six").status == 0)
        #expect(try device.lib("status", "--prompt", environment: ["LANG": "C.UTF-8"]).stdout == "alice ↑2 · ↑1\n")
        #expect(try device.lib("status", "--prompt", environment: ["LANG": "C"]).stdout == "alice +2 | +1\n")
        #expect(try snippetLines(device) == ["alice ↑2 · ↑1"], "the snippets read the same files, starting no process")
    }

    /// The line each snippet (bash, zsh, fish) shows, once if they agree.
    private func snippetLines(_ device: LibHarness) throws -> [String] {
        let snippets = repositoryRoot() + "/contrib/prompt"
        var environment = device.environment
        environment["LANG"] = "C.UTF-8"
        environment["PATH"] = "/nonexistent"
        let bash = try CommandRunner.run("/bin/bash", ["--norc", "--noprofile", "-c",
            ". \(snippets)/lib-prompt.bash; __lib_prompt_update; echo \"$LIB_PROMPT\""], environment: environment)
        let zsh = try CommandRunner.run("/usr/bin/zsh", ["-f", "-c",
            "source \(snippets)/lib-prompt.zsh; __lib_prompt_update; print -r -- \"$LIB_PROMPT\""], environment: environment)
        let fish = try CommandRunner.run("/usr/bin/fish", ["-N", "-c", "source \(snippets)/lib-prompt.fish; lib_prompt; echo"],
                                         environment: environment)
        return Array(Set([bash, zsh, fish].map { $0.stdout.trimmingCharacters(in: .newlines) + $0.stderr }))
    }

    @Test func statusShortAndRestoreWork() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-5"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-5", "copies:=5").status == 0)
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("status", "-s").stdout == "## \(account)\nM  books/b-5\n")
        let restore = try alice.lib("restore", "books/b-5")
        #expect(restore.status == 0, "\(restore)")
        #expect(restore.stdout == "Discarded 1 write of books/b-5 for \(account); 0 writes left.\n")
        #expect(try alice.lib("status", "-s").stdout == "## \(account)\n")
        #expect(try alice.lib("help", "restore").stdout.contains("discard"))
    }
}

/// The server's current ETag of a book, read from its database.
private func serverETag(_ server: ServerProcess, _ book: String) throws -> String? {
    let out = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath, "SELECT etag FROM books WHERE id = '\(book)'"])
    let etag = out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return etag.isEmpty ? nil : etag
}
