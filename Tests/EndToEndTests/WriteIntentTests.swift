import Foundation
import LibJSON
import Testing
import TestSupport

/// A write is the user's intent (the fields changed, against the version
/// seen): no sequence of ordinary actions reverts a change nobody chose to
/// revert. The sequences a randomized trial of four devices found, each
/// against the real lib-server, on SQLite and (under
/// scripts/with-postgres.sh, `make test-postgres`) on PostgreSQL.
@Suite(.serialized) struct WriteIntentTests {
    struct Library {
        let server: ServerProcess
        let alice: LibHarness
        let bob: LibHarness

        /// `strictBob`: bob pushes under the whole-version rule
        /// (LIB_STRICT_WRITES=1), so that changes of different fields make
        /// the conflicts these sequences settle.
        init(strictBob: Bool = false) throws {
            let dir = try TemporaryDirectory("lib-e2e-intent")
            server = try ServerProcess(database: try TestDatabase.fresh(in: dir), owning: dir)
            alice = try LibHarness()
            bob = try LibHarness()
            if strictBob { bob.extraEnvironment["LIB_STRICT_WRITES"] = "1" }
            try alice.login("alice", to: server)
            try bob.login("bob", to: server)
        }

        /// The server's current b-1, as alice reads it fresh.
        func book(_ id: String = "b-1") throws -> JSONValue {
            let get = try alice.lib("get", "--fresh", "books/\(id)")
            #expect(get.status == 0, "\(get)")
            return try JSONParser.parse(get.stdout)
        }

        func run(_ who: LibHarness, _ arguments: String..., status: Int32 = 0,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
            let result = try who.lib(arguments)
            #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
            return result
        }

        func aliceSets(_ assignment: String) throws {
            _ = try run(alice, "edit", "books/b-1", assignment, "--push")
        }
    }

    func bobSignsIn(_ library: Library, _ restore: String) throws -> CommandResult {
        let result = try library.bob.lib("login", library.server.baseURL, "--user", "bob", "--password-stdin", restore,
                                         stdin: "bob-demo\n")
        #expect(result.status == 0, "\(result)")
        return result
    }

    /// Bob's title, set aside at one logout; his author, set aside at the
    /// next; alice's copies in between and after; then bob signs in with
    /// --restore.
    func twoLogoutsRestored(_ l: Library) throws -> CommandResult {
        _ = try l.run(l.bob, "edit", "books/b-1", "title=Bob's title")
        _ = try l.run(l.bob, "logout")
        try l.aliceSets("copies:=11")
        _ = try bobSignsIn(l, "--no-restore")
        _ = try l.run(l.bob, "get", "books/b-1")
        _ = try l.run(l.bob, "edit", "books/b-1", "author=B-author")
        _ = try l.run(l.bob, "logout")
        try l.aliceSets("copies:=22")
        return try bobSignsIn(l, "--restore")
    }

    /// Restored together under the whole-version rule, and settled with
    /// each choice, they keep every change.
    @Test(arguments: ["--merge", "--mine", "--theirs"])
    func twoLogoutsRestoredTogetherRevertNothing(choice: String) throws {
        let l = try Library(strictBob: true)
        let login = try twoLogoutsRestored(l)
        #expect(login.stdout.contains("Restored 2 writes"), "\(login)")

        // What the pending writes will send, not the newest write's old whole document.
        let offline = try JSONParser.parse(try l.run(l.bob, "get", "--offline", "books/b-1").stdout)
        #expect(offline["title"] == "Bob's title" && offline["author"] == "B-author", "\(offline)")

        let push = try l.run(l.bob, "push", status: 3)
        #expect(push.stderr.contains("1 conflict: books/b-1"), "\(push)")
        let view = try l.run(l.bob, "resolve", "books/b-1", status: 3)
        #expect(view.stdout.contains("keeps copies from the server and title from you"), "\(view)")
        _ = try l.run(l.bob, "resolve", "books/b-1", choice)
        _ = try l.run(l.bob, "push")
        let book = try l.book()
        #expect(book["title"] == "Bob's title", "bob's first write is kept\n\(book)")
        #expect(book["author"] == "B-author", "bob's second write is kept\n\(book)")
        #expect(book["copies"] == 22, "alice's newest copies are kept\n\(book)")
        #expect(try l.run(l.bob, "status", "--porcelain").stdout.contains("pending 0\nconflicts 0\n"))
    }

    /// The same sequence under the field rule (protocol v2's default): bob's
    /// restored writes are merged with alice's copies on the server, with no
    /// conflict, and every change is kept.
    @Test func twoLogoutsRestoredTogetherMergeWithoutAConflict() throws {
        let l = try Library()
        _ = try twoLogoutsRestored(l)

        let push = try l.run(l.bob, "push")
        #expect(push.stdout.contains("books/b-1: merged with alice's change to copies"), "\(push)")
        let book = try l.book()
        #expect(book["title"] == "Bob's title" && book["author"] == "B-author" && book["copies"] == 22, "\(book)")
        let log = try l.run(l.bob, "log")
        #expect(log.stdout.contains("merged with alice's change to copies"), "\(log)")
    }

    /// Protocol v2's field rule through two lib-server instances on one
    /// database (PostgreSQL under `make test-postgres`): bob writes through
    /// one, alice (against the versions she saw before) through the other.
    /// Her change of another field merges and says so; her change of the
    /// field bob changed, and her delete of a book he changed, are conflicts.
    @Test func twoInstancesOnOneDatabaseMergeOnlyWhatDoesNotClash() throws {
        let dir = try TemporaryDirectory("lib-e2e-instances")
        let database = try TestDatabase.fresh(in: dir)
        let first = try ServerProcess(database: database, owning: dir)
        let second = try ServerProcess(database: database, demo: false)
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: second)
        try bob.login("bob", to: first)
        try alice.cache(["books/b-1", "books/b-2", "books/b-3"], from: second, as: "alice")
        for (book, change) in [("b-1", "copies:=7"), ("b-2", "title=Bob's two"), ("b-3", "copies:=9")] {
            #expect(try bob.lib("edit", "books/\(book)", change).status == 0)
        }
        let bobs = try bob.lib("push")
        #expect(bobs.status == 0, "\(bobs)")
        for (book, change) in [("b-1", "year:=1814"), ("b-2", "title=Alice's two"), ("b-3", "--delete")] {
            #expect(try alice.lib("edit", "books/\(book)", change).status == 0)
        }
        let push = try alice.lib("push")
        #expect(push.status == 3, "\(push)")
        #expect(push.stdout.contains("books/b-1: merged with bob's change to copies."), "\(push)")
        #expect(push.stderr.contains("2 conflicts: books/b-2, books/b-3"), "\(push)")
        let b1 = try JSONParser.parse(try alice.lib("get", "--fresh", "books/b-1").stdout)
        #expect(b1["copies"] == 7 && b1["year"] == 1814, "both changes kept: \(b1)")
        let b2 = try JSONParser.parse(try bob.lib("get", "--fresh", "books/b-2").stdout)
        #expect(b2["title"] == "Bob's two", "bob's title is not overwritten: \(b2)")
        #expect(try bob.lib("get", "--fresh", "books/b-3").status == 0, "the changed book is not deleted")
        #expect(try alice.lib("log").stdout.contains("merged with bob's change to copies"))
        _ = first
    }

    /// With no other user at all, the second sign-in's write goes on top of
    /// the first's: no conflict, nothing undone.
    @Test func aLaterSignInNeverUndoesAnEarlierOnesWrite() throws {
        let l = try Library()
        _ = try l.run(l.bob, "edit", "books/b-1", "title=Bob's title")
        _ = try l.run(l.bob, "logout")
        _ = try bobSignsIn(l, "--no-restore")
        _ = try l.run(l.bob, "edit", "books/b-1", "author=B-author")
        _ = try l.run(l.bob, "logout")
        _ = try bobSignsIn(l, "--restore")
        _ = try l.run(l.bob, "push")
        let book = try l.book()
        #expect(book["title"] == "Bob's title" && book["author"] == "B-author", "\(book)")
    }

    /// A write settled once goes against the version it was settled on: the
    /// second conflict shows only bob's title as his, and alice's copies
    /// back to 1 survive it.
    @Test(arguments: ["--merge", "--mine"])
    func aSettledWriteIsRebasedOntoTheVersionItWasSettledOn(choice: String) throws {
        let l = try Library(strictBob: true)
        _ = try l.run(l.bob, "edit", "books/b-1", "title=Bob's title")
        try l.aliceSets("copies:=11")
        _ = try l.run(l.bob, "push", status: 3)
        let first = try l.run(l.bob, "resolve", "books/b-1", "--merge")
        #expect(first.stdout.contains("copies from the server; title from you"), "\(first)")
        try l.aliceSets("copies:=1")
        _ = try l.run(l.bob, "push", status: 3)

        let view = try l.run(l.bob, "resolve", "books/b-1", status: 3)
        #expect(view.stdout.contains("--merge           sends the merge; keeps copies from the server and title from you"), "\(view)")
        let copies = try #require(view.stdout.split(separator: "\n").first { $0.contains("copies") })
        #expect(copies.split(separator: " ", omittingEmptySubsequences: true).map(String.init) == ["copies", "11", "11", "1"],
                "base and mine are the version settled on\n\(view)")
        let diff = try l.run(l.bob, "diff", "books/b-1")
        #expect(diff.stdout.contains("title:  \"Pride and Prejudice\" → \"Bob's title\"") && diff.stdout.contains("copies: 11 (unchanged here)"),
                "bob changes only the title\n\(diff)")

        _ = try l.run(l.bob, "resolve", "books/b-1", choice)
        _ = try l.run(l.bob, "push")
        let book = try l.book()
        #expect(book["title"] == "Bob's title" && book["copies"] == 1, "alice's copies 1 is kept\n\(book)")
    }

    /// "Sent" only once the request may have reached the server: a refused
    /// push and a write held behind a conflict are neither sent nor need --force.
    @Test func aWriteNobodySentIsNotSent() throws {
        let l = try Library()
        _ = try l.run(l.bob, "edit", "books/b-2", "title=Two")
        _ = try l.run(l.bob, "edit", "books/b-3", "title=Three")
        l.server.stop()
        let push = try l.run(l.bob, "push", status: 75)
        #expect(push.stderr.contains("connection refused"), "\(push)")
        let short = try l.run(l.bob, "status", "--short").stdout
        #expect(short.contains("M  books/b-2") && short.contains("M  books/b-3") && !short.contains("MS"), "\(short)")
        let json = try JSONParser.parse(try l.run(l.bob, "--json", "status").stdout)
        let sent = json.arrayValue?.first?["writes"]?.arrayValue?.map { $0["sent_without_answer"] }
        #expect(sent == [.bool(false), .bool(false)], "\(json)")
        let discard = try l.run(l.bob, "discard", "books/b-2")
        #expect(discard.stdout.hasPrefix("Discarded 1 write of books/b-2"), "\(discard)")
    }

    @Test func aWriteHeldBehindAConflictIsNotSent() throws {
        let l = try Library()
        _ = try l.run(l.bob, "edit", "books/b-1", "title=Bob's title")
        try l.aliceSets("title=Alice's title")
        _ = try l.run(l.bob, "push", status: 3)
        _ = try l.run(l.bob, "edit", "books/b-1", "year:=1999")
        _ = try l.run(l.bob, "push", status: 3)
        let short = try l.run(l.bob, "status", "--short").stdout
        #expect(!short.contains("MS"), "\(short)")
        _ = try l.run(l.bob, "discard", "books/b-1")
        #expect(try l.book()["title"] == "Alice's title")
    }
}
