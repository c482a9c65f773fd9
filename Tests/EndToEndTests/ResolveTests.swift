import Foundation
import Testing
import TestSupport

/// `lib resolve` against a real lib-server: a real 412 made by two users,
/// then each way of settling it, and a write the server rejected (403).
@Suite struct ResolveTests {
    /// alice caches b-7; bob changes it and pushes; alice changes her stale
    /// copy and pushes: a conflict (exit 3). Changes of different fields
    /// clash only under the whole-version rule: `strict` pushes with `--strict`.
    struct Conflict {
        let server: ServerProcess
        let alice: LibHarness
        let account: String
    }

    func makeConflict(bob bobChanges: [String], alice aliceChanges: [String], strict: Bool = false,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> Conflict {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        let bobEdit = try bob.lib(["edit", "books/b-7"] + bobChanges + ["--push"])
        #expect(bobEdit.status == 0, "\(bobEdit)", sourceLocation: sourceLocation)
        let edit = try alice.lib(["edit", "books/b-7"] + aliceChanges)
        #expect(edit.status == 0, "\(edit)", sourceLocation: sourceLocation)
        let push = try alice.lib(["push"] + (strict ? ["--strict"] : []))
        #expect(push.status == 3, "\(push)", sourceLocation: sourceLocation)
        #expect(push.stderr.contains("1 conflict: books/b-7"), "\(push)", sourceLocation: sourceLocation)
        return Conflict(server: server, alice: alice, account: alice.account("alice", on: server))
    }

    @Test func aMergeTakesEachSidesFieldsAndIsPushed() throws {
        let c = try makeConflict(bob: ["title=Dune (bob)"], alice: ["copies:=1"], strict: true)
        let alice = c.alice

        let list = try alice.lib("resolve")
        #expect(list.status == 3, "\(list)")
        #expect(list.stdout.hasPrefix("1 write of \(c.account) waits for a decision:\n  books/b-7  conflict\n"), "\(list)")
        #expect(list.stdout.contains("Run `lib resolve PATH` to see one"), "\(list)")
        let json = try alice.lib("--json", "resolve")
        #expect(json.status == 3, "\(json)")
        #expect(json.stdout == "{\"account\":\"\(c.account)\",\"items\":[{\"path\":\"books/b-7\",\"status\":\"conflict\"}]}\n", "\(json)")

        let show = try alice.lib("resolve", "books/b-7")
        #expect(show.status == 3, "\(show)")
        #expect(show.stdout.hasPrefix("books/b-7 is in conflict for \(c.account)"), "\(show)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("FIELD") && $0.contains("BASE") && $0.contains("MINE") && $0.contains("THEIRS") }, "\(show)")
        let title = lines.first { $0.contains(" title ") } ?? ""
        #expect(title.contains("\"Dune\"") && title.contains("\"Dune (bob)\"") && !title.hasPrefix("*"), "\(show)")
        let copies = lines.first { $0.contains(" copies ") } ?? ""
        #expect(copies.contains("3") && copies.contains("1") && !copies.hasPrefix("*"), "\(show)")
        #expect(show.stdout.contains("No field clashes: run `lib resolve books/b-7 --merge`"), "\(show)")

        let merge = try alice.lib("resolve", "books/b-7", "--merge")
        #expect(merge.status == 0, "\(merge)")
        #expect(merge.stdout == "Resolved books/b-7 for \(c.account): merged (title from the server; copies from you); it will be sent at the next push.\n", "\(merge)")
        #expect(try alice.conflicts() == 0)
        #expect(try alice.pending() == 1)

        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        let history = try serverHistory(c.server, book: "b-7")
        #expect(history.count == 3, "\(history)")
        let latest = history.last?.document ?? ""
        #expect(latest.contains("\"title\":\"Dune (bob)\"") && latest.contains("\"copies\":1"), "\(history)")
        #expect(history.last?.updatedBy == (try serverUserID(c.server, "alice")))

        let none = try alice.lib("resolve")
        #expect(none.status == 0 && none.stdout == "Nothing to resolve for \(c.account).\n", "\(none)")
        let nothing = try alice.lib("resolve", "books/b-7", "--mine")
        #expect(nothing.status == 1, "\(nothing)")
        #expect(nothing.stderr.contains("Nothing to resolve for books/b-7"), "\(nothing)")
        let bad = try alice.lib("resolve", "../etc")
        #expect(bad.status == 2 && bad.stderr.contains("is not a resource path"), "\(bad)")
        let noPath = try alice.lib("resolve", "--merge")
        #expect(noPath.status == 2 && noPath.stderr.contains("--merge needs a PATH"), "\(noPath)")
    }

    @Test func aClashIsNamedAndMineWinsOverTheirs() throws {
        let c = try makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)"])
        let alice = c.alice
        let show = try alice.lib("resolve", "books/b-7")
        #expect(show.status == 3, "\(show)")
        #expect(show.stdout.contains("\n* title "), "\(show)")
        #expect(show.stdout.contains("* changed on both sides\n"), "\(show)")
        #expect(show.stdout.contains("title was changed on both sides: use --mine, --theirs or --edit.\n"), "\(show)")

        let merge = try alice.lib("resolve", "books/b-7", "--merge")
        #expect(merge.status == 3, "\(merge)")
        #expect(merge.stderr == "lib: title was changed on both sides: use --mine, --theirs or --edit.\n", "\(merge)")
        #expect(try alice.conflicts() == 1, "nothing changed")

        let mine = try alice.lib("resolve", "books/b-7", "--mine")
        #expect(mine.status == 0, "\(mine)")
        #expect(mine.stdout == "Resolved books/b-7 for \(c.account): your title; it will be sent at the next push.\n", "\(mine)")
        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        let history = try serverHistory(c.server, book: "b-7")
        #expect(history.map(\.updatedBy) == ["demo", try serverUserID(c.server, "bob"), try serverUserID(c.server, "alice")], "\(history)")
        #expect(history.last?.document?.contains("\"title\":\"Dune (alice)\"") == true, "\(history)")
    }

    @Test func theirsKeepsWhatWasMadeOnTopOfMineOffline() throws {
        let c = try makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)"])
        let alice = c.alice
        #expect(try alice.lib("edit", "books/b-7", "year:=1966").status == 0, "queued behind the conflict")
        c.server.stop()

        let theirs = try alice.lib("resolve", "books/b-7", "--theirs")
        #expect(theirs.status == 0, "\(theirs)")
        #expect(theirs.stdout == "Resolved books/b-7 for \(c.account): the server's title; your 1 write made on top of it will be sent at the next push, over the server's version.\n", "\(theirs)")
        #expect(try alice.pending() == 1)
        #expect(try alice.conflicts() == 0)
        let get = try alice.lib("get", "--offline", "books/b-7")
        #expect(get.status == 0, "\(get)")
        #expect(get.stdout.contains("Dune (bob)") && !get.stdout.contains("Dune (alice)") && get.stdout.contains("1966"), "\(get)")
    }

    @Test func theirsWholeDropsMineAndWhatWasMadeOnTopOfItAfterSayingSo() throws {
        let c = try makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)"])
        let alice = c.alice
        #expect(try alice.lib("edit", "books/b-7", "year:=1966").status == 0, "queued behind the conflict")
        c.server.stop()

        let unasked = try alice.lib("resolve", "books/b-7", "--theirs", "--whole")
        #expect(unasked.status == 2, "\(unasked)")
        #expect(unasked.stderr.contains("--theirs --whole reverts year (changed by you alone): add --yes to confirm, or use --theirs to keep that change"), "\(unasked)")
        #expect(try alice.conflicts() == 1, "nothing changed")

        let theirs = try alice.lib("resolve", "books/b-7", "--theirs", "--whole", "--yes")
        #expect(theirs.status == 0, "\(theirs)")
        #expect(theirs.stdout == "Resolved books/b-7 for \(c.account): kept the server's whole version; dropped 2 writes (1 made on top of it) of yours (it reverts your change to year).\n", "\(theirs)")
        #expect(try alice.pending() == 0)
        #expect(try alice.conflicts() == 0)
        let get = try alice.lib("get", "--offline", "books/b-7")
        #expect(get.status == 0, "\(get)")
        #expect(get.stdout.contains("Dune (bob)") && !get.stdout.contains("Dune (alice)") && !get.stdout.contains("1966"), "\(get)")
    }

    @Test func editSettlesAClashWithTheUsersDocument() throws {
        let c = try makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)", "copies:=5"])
        let alice = c.alice
        let scripts = try TemporaryDirectory("lib-e2e-resolve-editor")
        try writeScript(scripts.file("noop"), "true\n")
        let unchanged = try alice.lib(["resolve", "books/b-7", "--edit"], environment: ["EDITOR": scripts.file("noop"), "VISUAL": ""])
        #expect(unchanged.status == 3, "\(unchanged)")
        #expect(unchanged.stderr.contains("Nothing changed; books/b-7 still waits for a decision"), "\(unchanged)")
        #expect(try alice.conflicts() == 1)

        // Saves with the marker left first (refused, reopened), then keeps one value.
        try writeScript(scripts.file("fix"), """
            n=$(cat \(scripts.file("count")) 2>/dev/null || echo 0); n=$((n+1)); echo $n > \(scripts.file("count"))
            cp "$1" \(scripts.file("seen")).$n
            if [ $n = 1 ]; then sed -i 's/"copies": 5/"copies": 6/' "$1"; exit 0; fi
            python3 - "$1" <<'PY'
            import json, sys
            lines = [l for l in open(sys.argv[1]) if not l.lstrip().startswith("//")]
            doc = json.loads("".join(lines))
            doc["title"] = "Dune (both)"
            open(sys.argv[1], "w").write(json.dumps(doc))
            PY

            """)
        let edit = try alice.lib(["resolve", "books/b-7", "--edit"], environment: ["EDITOR": scripts.file("fix"), "VISUAL": ""])
        #expect(edit.status == 0, "\(edit)")
        #expect(edit.stdout == "Resolved books/b-7 for \(c.account): your edited version will be sent at the next push.\n", "\(edit)")
        let seen = try String(contentsOfFile: scripts.file("seen") + ".1", encoding: .utf8)
        #expect(seen.hasPrefix("// Resolving books/b-7 for \(c.account).\n// Changed on both sides: title."), "\(seen)")
        #expect(seen.contains("\"<<< mine\": \"Dune (alice)\""), "both values, marked\n\(seen)")
        #expect(seen.contains("\">>> theirs\": \"Dune (bob)\""), "both values, marked\n\(seen)")
        #expect(seen.contains("\"copies\": 5"), "\(seen)")
        let again = try String(contentsOfFile: scripts.file("seen") + ".2", encoding: .utf8)
        #expect(again.hasPrefix("// The document is not valid: 'title' still holds both values between markers"), "refused while a marker is left\n\(again)")
        #expect(again.contains("\"copies\": 6"), "the user's text is kept\n\(again)")
        #expect(try alice.lib("push").status == 0)
        let latest = try serverHistory(c.server, book: "b-7").last?.document ?? ""
        #expect(latest.contains("\"title\":\"Dune (both)\"") && latest.contains("\"copies\":6"), "\(latest)")
        _ = scripts
    }

    @Test func aRejectedWriteIsShownAndDiscarded() throws {
        let server = try startDemoServer()
        let carol = try LibHarness()
        try carol.login("carol", to: server)
        let account = carol.account("carol", on: server)
        try carol.cache(["books/b-7"], from: server, as: "carol")
        #expect(try carol.lib("edit", "books/b-7", "copies:=9").status == 0)
        let push = try carol.lib("push")
        #expect(push.status == 3, "\(push)")

        let list = try carol.lib("resolve")
        #expect(list.status == 3, "\(list)")
        #expect(list.stdout.contains("  books/b-7  rejected: ") && list.stdout.contains("reader"), "\(list)")
        let show = try carol.lib("resolve", "books/b-7")
        #expect(show.status == 3, "\(show)")
        #expect(show.stdout.hasPrefix("books/b-7 was rejected by the server for \(account): "), "\(show)")
        #expect(show.stdout.contains("only librarians may change books"), "\(show)")
        #expect(show.stdout.contains("Run `lib resolve books/b-7 --edit` to fix it, or `lib resolve books/b-7 --discard` to drop it."), "\(show)")
        let mine = try carol.lib("resolve", "books/b-7", "--mine")
        #expect(mine.status == 2 && mine.stderr.contains("was rejected by the server, not in conflict"), "\(mine)")

        let discard = try carol.lib("resolve", "books/b-7", "--discard")
        #expect(discard.status == 0, "\(discard)")
        #expect(discard.stdout == "Resolved books/b-7 for \(account): discarded 1 write.\n", "\(discard)")
        let status = try carol.lib("status")
        #expect(status.stdout == "On \(account)\nNothing waiting to be sent.\n", "\(status)")
        #expect(try carol.pending() == 0)
        #expect(try carol.lib("resolve", "-q").stdout.isEmpty)
    }
}
