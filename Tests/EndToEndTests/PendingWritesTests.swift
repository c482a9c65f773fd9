import Foundation
import LibJSON
import Testing
import TestSupport

/// The user sees and controls every pending write: `status` lists them in
/// each format, `diff` shows what one changes, `discard` takes one back, and
/// a write whose answer was lost is not discarded without `--force`.
@Suite struct PendingWritesTests {
    @Test func statusListsTwoWritesDiffShowsOneAndDiscardTakesItBack() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7", "books/b-8"], from: server, as: "alice")
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("edit", "books/b-7", "title=Dune (alice)", "year:=1966").status == 0)
        #expect(try alice.lib("edit", "books/b-8", "--delete").status == 0)

        let status = try alice.lib("status")
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.hasPrefix("On \(account)\n2 writes pending: run `lib push` to send them, `lib diff` to see them.\n"), "\(status)")
        #expect(status.stdout.contains("\n  change  books/b-7  title, year · just now\n"), "\(status)")
        #expect(status.stdout.contains("\n  delete  books/b-8  deletes it · just now\n"), "\(status)")

        let short = try alice.lib("status", "--short")
        #expect(short.stdout == "## \(account)\nM  books/b-7\nD  books/b-8\n", "\(short)")

        let porcelain = try alice.lib("status", "--porcelain")
        let lines = porcelain.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(6)) == ["account \(account)", "current true", "pending 2", "conflicts 0", "rejected 0", "set-aside 0"], "\(porcelain)")
        let writes = lines.filter { $0.hasPrefix("write ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(writes.count == 2, "\(porcelain)")
        #expect(writes.first.map { [$0[1], $0[2], $0[3], $0[5], $0[6]] } == ["pending", "change", "0", "books/b-7", "title,year"], "\(porcelain)")
        #expect(writes.last.map { [$0[1], $0[2], $0[3], $0[5], $0[6]] } == ["pending", "delete", "0", "books/b-8", "-"], "\(porcelain)")
        #expect(writes.first.flatMap { Double($0[4]) }.map { abs($0 - Date().timeIntervalSince1970) < 600 } == true, "created, in unix seconds\n\(porcelain)")
        #expect(porcelain.stdout.hasSuffix("\n\n"), "\(porcelain)")

        let json = try alice.lib("--json", "status")
        let listed = try JSONParser.parse(json.stdout).arrayValue?.first?["writes"]?.arrayValue ?? []
        #expect(listed.map { $0["path"]?.stringValue } == ["books/b-7", "books/b-8"], "\(json)")
        #expect(listed.first?["fields"] == .array(["title", "year"]), "\(json)")
        #expect(listed.map { $0["kind"]?.stringValue } == ["change", "delete"], "\(json)")
        #expect(listed.first?["sent_without_answer"] == .bool(false), "\(json)")

        let diff = try alice.lib("diff", "books/b-7")
        #expect(diff.status == 0, "\(diff)")
        #expect(diff.stdout == """
            books/b-7: change, pending, just now
              title: "Dune" → "Dune (alice)"
              year:  1965 → 1966

            """, "\(diff)")
        let diffJSON = try JSONParser.parse(try alice.lib("--json", "diff", "books/b-7").stdout)
        let change = diffJSON["writes"]?.arrayValue?.first?["changes"]?.arrayValue?.first
        #expect(change == .object(JSONObject([("field", "title"), ("old", "Dune"), ("new", "Dune (alice)")])), "\(diffJSON)")
        let nothing = try alice.lib("diff", "books/b-9")
        #expect(nothing.status == 1 && nothing.stderr.contains("Nothing to show for books/b-9"), "\(nothing)")

        let discard = try alice.lib("discard", "books/b-7")
        #expect(discard.status == 0, "\(discard)")
        #expect(discard.stdout == "Discarded 1 write of books/b-7 for \(account); 1 write left.\n", "\(discard)")
        #expect(try alice.lib("status", "--short").stdout == "## \(account)\nD  books/b-8\n")
        let again = try alice.lib("discard", "books/b-7")
        #expect(again.status == 1 && again.stderr.contains("Nothing to discard for books/b-7"), "\(again)")

        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(try serverWriteOrder(server, user: "alice") == ["b-8"], "only the write that was not discarded was sent")
        #expect(try serverHistory(server, book: "b-7").count == 1)
        #expect(try alice.lib("status", "--prompt").stdout == "", "nothing waits: the prompt says nothing")
    }

    @Test func aWriteWhoseAnswerWasLostIsNotDiscardedWithoutForce() throws {
        // Twice: libcurl resends a request whose reused connection closed.
        let server = try startDemoServer(arguments: ["--fault", "drop-after-commit,path=/v2/writes,times=2"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("edit", "books/b-7", "copies:=9").status == 0)
        let push = try alice.lib("push")
        #expect(push.status == 75, "the answer was lost\n\(push)")

        let short = try alice.lib("status", "--short")
        #expect(short.stdout == "## \(account)\nMS books/b-7\n", "\(short)")
        let status = try alice.lib("status")
        #expect(status.stdout.contains("  change  books/b-7  copies · just now · sent at "), "\(status)")
        #expect(status.stdout.contains(", no answer (1 attempt): "), "\(status)")

        let refused = try alice.lib("discard", "books/b-7")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("books/b-7 was not discarded: it was sent at "), "\(refused)")
        #expect(refused.stderr.contains(" and no answer came, so it may be on the server. Push first to learn what happened (`lib push`), or add --force"), "\(refused)")
        let all = try alice.lib("discard", "--all", "--yes")
        #expect(all.status == 1 && all.stderr.contains("books/b-7 was not discarded"), "--all refuses it too\n\(all)")
        #expect(try alice.pending() == 1, "nothing was discarded")

        let forced = try alice.lib("discard", "books/b-7", "--force")
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdout.contains("Discarded 1 write of books/b-7"), "\(forced)")
        #expect(forced.stdout.contains("run `lib get PATH` to see what the server has"), "\(forced)")
        #expect(try alice.pending() == 0)
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"copies\":9") == true, "it had reached the server")
    }

    @Test func discardAllAsksForYesOffATerminalAndTakesConflictsToo() throws {
        let c = try ResolveTests().makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)"])
        let alice = c.alice
        #expect(try alice.lib("edit", "books/b-9", "year:=2000").status == 0)
        let status = try alice.lib("status")
        #expect(status.stdout.contains("1 conflict to settle: run `lib resolve PATH`.\n  change  books/b-7  title · "), "\(status)")
        let diff = try alice.lib("diff", "books/b-7")
        #expect(diff.stdout.contains("title: \"Dune\" → \"Dune (alice)\"   theirs: \"Dune (bob)\""), "\(diff)")

        let unasked = try alice.lib("discard", "--all")
        #expect(unasked.status == 2, "\(unasked)")
        #expect(unasked.stderr.contains("--all would take back 2 writes of \(c.account): add --yes to confirm"), "\(unasked)")
        let usage = try alice.lib("discard")
        #expect(usage.status == 2 && usage.stderr.contains("discard needs a PATH"), "\(usage)")

        let all = try alice.lib("discard", "--all", "--yes")
        #expect(all.status == 0, "\(all)")
        #expect(all.stdout == "Discarded 2 writes of 2 documents for \(c.account); 0 writes left.\n", "\(all)")
        #expect(try alice.conflicts() == 0 && alice.pending() == 0)
    }
}
