import LibBase
import LibJSON
import LibNet
import LibSync
import Testing
@testable import LibCommands

// `lib log`, `lib revert`, `lib new`, `lib push --dry-run` and `lib restore`
// (issue 26): argv to exit code and words, what the stub server received,
// and what the outbox and the pushed log hold after.

/// Signs in, caches b-7, changes its title and pushes it (the server
/// answers with "2-a"): one pushed write in the log.
private func machineWithAPushedTitle() throws -> Machine {
    let machine = try Machine()
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "title=Dune (alice)").exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-a\"") }
    let push = machine.lib("push")
    #expect(push.exitCode == .success, "\(push)")
    return machine
}

@Test func logListsPushedWritesNewestFirstWithoutARequest() throws {
    let machine = try machineWithAPushedTitle()
    defer { machine.verify() }
    machine.clock.advance(by: 60)
    #expect(machine.lib("edit", "books/b-7", "copies:=9").exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"3-b\"") }
    #expect(machine.lib("push").exitCode == .success)

    let log = machine.lib("log")
    #expect(log.exitCode == .success, "\(log)")
    let lines = log.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "Pushed from this device for \(machine.account()), newest first:")
    #expect(lines.count == 3, "\(log)")
    #expect(lines[1].contains("change  books/b-7  copies=9  -> \"3-b\""), "\(log)")
    #expect(lines[2].contains("change  books/b-7  title=\"Dune (alice)\"  -> \"2-a\""), "\(log)")
    #expect(machine.lib("log", "-n", "1").stdout.split(separator: "\n").count == 2)
    #expect(machine.lib("log", "-n", "x").exitCode == .usage)
    #expect(machine.lib("log", "books").exitCode == .usage)

    let json = machine.lib("--json", "log")
    let pushed = try #require(JSONValue.parsing(json.stdout)?["pushed"]?.arrayValue)
    #expect(pushed.map { $0["etag"] } == ["\"3-b\"", "\"2-a\""])
    #expect(pushed[1]["changes"] == [["field": "title", "old": "Dune", "new": "Dune (alice)"]])
    #expect(JSONValue.parsing(json.stdout)?["server_history"] == .null)
}

@Test func logOfABookAddsTheServersHistoryOrSaysItIsMissing() throws {
    let machine = try machineWithAPushedTitle()
    defer { machine.verify() }
    let history: JSONValue = ["items": [
        ["version": 1, "etag": "\"1-3b41f282\"", "updated_by": "demo", "updated_by_name": .null, "at": "2026-12-01T10:00:00.000Z",
         "document": Fixtures.dune],
        ["version": 2, "etag": "\"2-a\"", "updated_by": "u-alice", "updated_by_name": "alice", "at": "2026-12-01T10:01:00.000Z",
         "document": ["id": "b-7", "title": "Dune (alice)", "author": "Frank Herbert", "year": 1965, "copies": 2]],
        ["version": 3, "etag": "\"3-c\"", "updated_by": "u-bob", "updated_by_name": "bob", "at": "2026-12-01T10:02:00.000Z",
         "document": ["id": "b-7", "title": "Dune (bob)", "author": "Frank Herbert", "year": 1965, "copies": 2]],
    ]]
    machine.server.on("GET", "/v1/books/b-7/history") { _ in Answers.json(200, history) }
    let online = machine.lib("log", "books/b-7")
    #expect(online.exitCode == .success, "\(online)")
    // The server's times in the local form of this device's writes (the minute depends on TZ).
    #expect(online.stdout.contains(#/\n  v3  2026-12-0[12] \d\d:\d2  bob  change  title: "Dune \(alice\)" -> "Dune \(bob\)"\n/#), "\(online)")
    #expect(online.stdout.contains(#/\n  v2  2026-12-0[12] \d\d:\d1  alice  change  title: "Dune" -> "Dune \(alice\)"\n/#), "\(online)")
    let bobFirst = try #require(online.stdout.range(of: "v3 ")), aliceAfter = try #require(online.stdout.range(of: "v2 "))
    #expect(bobFirst.lowerBound < aliceAfter.lowerBound, "newest first")

    machine.server.on("GET", "/v1/books/b-7/history") { _ in Answers.problem(503, "The database is unavailable") }
    let down = machine.lib("log", "books/b-7")
    #expect(down.exitCode == .success, "\(down)")
    #expect(down.stdout.contains("title=\"Dune (alice)\""), "the device's part is there: \(down)")
    #expect(down.stdout.contains("The server history of books/b-7 is missing: "), "\(down)")
    #expect(!machine.lib("log", "books/b-7", "--offline").stdout.contains("history"), "--offline asks nothing")
}

@Test func revertPutsTheTitleBackAgainstThePushedVersionAndConflictsWhenChangedSince() throws {
    let machine = try machineWithAPushedTitle()
    defer { machine.verify() }
    let revert = machine.lib("revert", "books/b-7")
    #expect(revert.exitCode == .success, "\(revert)")
    #expect(revert.stdout.contains("Queued the revert of your change of books/b-7"), "\(revert)")
    let item = try #require(try machine.outbox().first)
    #expect(item.ifMatch == "\"2-a\"" && item.intent.fieldNames == ["title"])
    #expect(item.documentToSend?["title"] == "Dune")
    #expect(machine.lib("revert", "books/b-7").exitCode == .failure, "a write of the path waits: refused")

    // Bob changed the title since: the PUT is a 412, a conflict, exit 3.
    let bobs: JSONValue = ["id": "b-7", "title": "Dune (bob)", "author": "Frank Herbert", "year": 1965, "copies": 2]
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: bobs, etag: "\"3-c\"")
    }
    let push = machine.lib("push")
    #expect(push.exitCode == .attention, "\(push)")
    let put = try #require(machine.server.requests("PUT", "/v1/books/b-7").last)
    #expect(put.headers["If-Match"] == "\"2-a\"")
    #expect(JSONValue.parsing(put.body)?["title"] == "Dune")
    #expect(try machine.outbox().first?.status == .conflict)
}

@Test func revertOfADeleteCreatesTheLastVersionAndOfThatCreateDeletesIt() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "--delete").exitCode == .success)
    machine.server.on("DELETE", "/v1/books/b-7") { request in Answers.deleted(request) }
    #expect(machine.lib("push").exitCode == .success)
    #expect(machine.lib("revert", "books/b-7").exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"3-r\"", status: 201) }
    #expect(machine.lib("push").exitCode == .success)
    let put = try #require(machine.server.requests("PUT", "/v1/books/b-7").first)
    #expect(put.headers["If-None-Match"] == "*" && put.headers["If-Match"] == nil)
    #expect(JSONValue.parsing(put.body) == Fixtures.dune, "the document as it was before the delete")

    // The newest pushed write is now that create: its revert is a delete of the version it made.
    #expect(machine.lib("revert", "books/b-7").exitCode == .success)
    machine.server.on("DELETE", "/v1/books/b-7") { request in Answers.deleted(request) }
    #expect(machine.lib("push").exitCode == .success)
    #expect(machine.server.requests("DELETE", "/v1/books/b-7").last?.headers["If-Match"] == "\"3-r\"")
    // Date, time, kind: both reverts are logged as reverts.
    #expect(machine.lib("log").stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[2] }
            == ["revert", "revert", "delete"])
    #expect(machine.lib("log").stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[3...].joined(separator: " ") }.first
            == "books/b-7 delete")
}

@Test func revertOfNothingPushedIsRefused() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let run = machine.lib("revert", "books/b-7")
    #expect(run.exitCode == .failure)
    #expect(run.stderr.contains("no record of a write of books/b-7 pushed"), "\(run)")
}

@Test func newMakesDistinctTimeOrderedIdsOfflineAndPushesThemAsCreates() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let first = machine.lib("new", "books", "title=Emma")
    machine.clock.advance(by: 0.002)
    let second = machine.lib("new", "books", "title=Persuasion", "year:=1817")
    #expect(first.exitCode == .success && second.exitCode == .success, "\(first) \(second)")
    let paths = [first.stdout, second.stdout].map { $0.trimmingCharacters(in: .newlines) }
    #expect(paths[0] != paths[1] && paths[0] < paths[1], "\(paths)")
    #expect(paths.allSatisfy { $0.hasPrefix("books/") && $0.count == "books/".count + 26 }, "\(paths)")
    #expect(machine.lib("new", "books/b-1", "title=X").exitCode == .usage)
    #expect(machine.lib("new", "books", "year:=1817").exitCode == .failure, "no title: the rules refuse it")
    #expect(try machine.outbox().map(\.kind) == [.create, .create])
    #expect(try machine.outbox().map(\.path) == paths)

    for path in paths {
        machine.server.on("PUT", "/v1/\(path)") { request in Answers.stored(request, etag: "\"1-n\"", status: 201) }
    }
    #expect(machine.lib("push").exitCode == .success)
    for path in paths {
        let put = try #require(machine.server.requests("PUT", "/v1/\(path)").first)
        #expect(put.headers["If-None-Match"] == "*")
        #expect(JSONValue.parsing(put.body)?["id"] == .string(String(path.dropFirst("books/".count))))
    }
}

@Test func aDryRunSaysWhatWouldBeSentAndSendsAndChangesNothing() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=4").exitCode == .success)
    #expect(machine.lib("edit", "books/b-21", "--create", "title=Emma").exitCode == .success)
    let before = try machine.outbox()
    let run = machine.lib("push", "-n")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == """
        A push for \(machine.account()) would send (dry run: nothing is sent or changed):
          1. PUT books/b-7 change copies=4 (If-Match: \(Fixtures.duneETag))
          2. PUT books/b-21 create title="Emma" (If-None-Match: *)
        2 writes would be sent.

        """, "\(run)")
    #expect(machine.server.received.count == machine.server.received.filter { $0.method == "GET" || $0.method == "POST" }.count)
    #expect(machine.server.requests("PUT", "/v1/books/b-7").isEmpty)
    #expect(try machine.outbox() == before, "not claimed, not touched")
    let json = JSONValue.parsing(machine.lib("--json", "push", "--dry-run").stdout)
    #expect(json?["accounts"]?.arrayValue?.first?["writes"]?.arrayValue?.map { $0["action"] } == ["send", "send"])
    #expect(machine.lib("push", "-n", "--wait", "5").exitCode == .usage)
}

@Test func aDryRunNamesWhatWaitsBehindAConflict() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=4").exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
    }
    #expect(machine.lib("push").exitCode == .attention)
    #expect(machine.lib("edit", "books/b-7", "title=Later").exitCode == .success)
    let run = machine.lib("push", "-n")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout.contains("-  PUT books/b-7 change copies=4: a conflict, waits for `lib resolve books/b-7`\n"), "\(run)")
    #expect(run.stdout.contains("-  PUT books/b-7 change title=\"Later\": waits behind the conflict of books/b-7"), "\(run)")
    #expect(run.stdout.hasSuffix("0 writes would be sent; 2 would wait for `lib resolve`.\n"), "\(run)")
    #expect(machine.server.requests("PUT", "/v1/books/b-7").count == 1, "only the push's")
}

@Test func restoreIsDiscard() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=4").exitCode == .success)
    #expect(machine.lib("status", "-s").stdout == "## \(machine.account())\nM  books/b-7\n")
    let run = machine.lib("restore", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Discarded 1 write of books/b-7 for \(machine.account()); 0 writes left.\n")
    #expect(try machine.outbox().isEmpty)
    #expect(machine.lib("restore").exitCode == .usage)
}

@Test func thePromptLineAddsUpWhatWaitsInOtherAccounts() {
    #expect(PromptSegment.combined("alice ↑2", name: "alice", others: [], unicode: true) == "alice ↑2")
    #expect(PromptSegment.combined("alice ↑2", name: "alice", others: ["bob ↑1"], unicode: true) == "alice ↑2 · ↑1")
    #expect(PromptSegment.combined("", name: "alice", others: ["bob ↑1"], unicode: true) == "alice · ↑1",
            "never a bare '· ↑1': the account in effect leads, and the others' counts never read as its own")
    #expect(PromptSegment.combined("", name: "alice", others: [], unicode: true) == "", "nothing waits anywhere: nothing")
    #expect(PromptSegment.combined("alice +2", name: "alice", others: ["bob +1", "carol =1", "dan +4 x2", "eve ~1"], unicode: false)
            == "alice +2 | +5 =1 x2 ~1", "however many accounts: the line stays short")
    #expect(PromptSegment.combined("alice ↑1", name: "alice", others: ["bob ↓7"], unicode: true) == "alice ↑1",
            "what another account is behind by waits for nobody: not added")
    #expect(PromptSegment.cut("alice@library.example.org", unicode: true) == "alice@library.examp…")
    #expect(PromptSegment.cut("alice@library.example.org", unicode: false) == "alice@library.exa...")
    #expect(PromptSegment(name: "alice@library.example.org", pending: 1).text(unicode: true).count == PromptSegment.nameWidth + 3)
}

@Test func thePromptSegmentShowsWhatTheDeviceIsBehindBy() {
    let segment = PromptSegment(name: "alice", pending: 2, conflicts: 1, behind: 5)
    #expect(segment.text(unicode: true) == "alice ↑2 ↓5 ≠1")
    #expect(segment.text(unicode: false) == "alice +2 v5 =1", "LC_ALL=C: no UTF-8 arrows")
    #expect(PromptSegment(name: "alice", behind: 3).text(unicode: true) == "alice ↓3")
    #expect(PromptSegment(name: "alice").fileContents == "\n\nalice\nalice\n", "the name stays in the file when nothing waits")
    #expect(!PromptSegment(name: "alice", behind: 3).text(unicode: false).unicodeScalars.contains { !$0.isASCII })
}

/// The first pull's progress line fits 40 and 80 columns (a line that wraps
/// leaves a row behind at each redraw): the server goes first, then the
/// verb; the books and the rate stay, their numbers grouped as the summary's.
@Test func thePullProgressLineFitsFortyAndEightyColumns() {
    let wide = PullProgress.line(listed: 8_400, of: 20_000, seconds: 2, server: "127.0.0.1:19500", columns: 80)
    #expect(wide == "Listing books from 127.0.0.1:19500: 42% (8,400/20,000), 4,200/s")
    let narrow = PullProgress.line(listed: 8_400, of: 20_000, seconds: 2, server: "127.0.0.1:19500", columns: 40)
    #expect(narrow == "Books: 42% (8,400/20,000), 4,200/s")
    let tiny = PullProgress.line(listed: 8_400, of: 20_000, seconds: 2, server: "127.0.0.1:19500", columns: 24)
    #expect(tiny == "Books: 8,400, 4,200/s")
    for columns in [20, 30, 40, 60, 80, 200] {
        #expect(PullProgress.line(listed: 123_456, of: 1_000_000, seconds: 3, server: "library.example.org", columns: columns).count < columns)
    }
    #expect(Wording.count(20_000, "book") == "20,000 books" && Wording.number(999) == "999" && Wording.number(-1_234) == "-1,234")
}
