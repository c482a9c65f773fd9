import Foundation
import LibJSON
import Testing
import TestSupport

/// `lib pull` and `lib search` against the real lib-server: the whole
/// library on the device, kept current from the change feed at the cost of
/// what changed, deletions included, unsent writes on top; search offline,
/// without the network or the keyring.
@Suite struct PullSearchTests {
    /// A demo server whose requests are logged (`--verbose`) to a file, so
    /// that a test counts what lib sent.
    final class LoggedServer: @unchecked Sendable {
        let directory: TemporaryDirectory
        let server: ServerProcess
        let logPath: String

        init(arguments: [String] = [], extraBooks: Int = 0) throws {
            directory = try TemporaryDirectory("lib-e2e-pull")
            let database = directory.file("server.sqlite")
            if extraBooks > 0 {
                // The server makes and migrates the database; the books go in
                // with its own tables' SQL (20,000 PUTs would take minutes).
                _ = try ServerProcess(database: database).stop()
                let sql = """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(extraBooks))
                    INSERT INTO books (id, version, etag, document)
                        SELECT printf('g-%05d', i), 1, printf('"1-g%05d"', i),
                               json_object('id', printf('g-%05d', i), 'title', 'Generated volume ' || i,
                                           'author', 'Author ' || (i % 100), 'year', 1900 + i % 120, 'tags', json_array('generated'))
                        FROM n;
                    INSERT INTO changes (book_id, deleted, at) SELECT id, 0, 0 FROM books WHERE id LIKE 'g-%' ORDER BY id;
                    """
                let result = try CommandRunner.run("/usr/bin/sqlite3", [database, sql])
                try #require(result.status == 0, "\(result)")
            }
            logPath = directory.file("server.log")
            FileManager.default.createFile(atPath: logPath, contents: nil)
            server = try ServerProcess(database: database, extraArguments: ["--verbose"] + arguments,
                                       standardError: FileHandle(forWritingAtPath: logPath))
        }

        /// The request lines logged so far ("GET /v1/changes?… 200 3ms").
        var requests: [String] {
            (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("GET ") || $0.hasPrefix("PUT ") || $0.hasPrefix("POST ") || $0.hasPrefix("DELETE ") } ?? []
        }

        /// The requests `body` makes the server log.
        func requests(during body: () throws -> Void) rethrows -> [String] {
            let before = requests.count
            try body()
            usleep(100_000)
            return Array(requests.dropFirst(before))
        }
    }

    static func pull(_ lib: LibHarness) throws -> JSONValue {
        let result = try lib.lib("--json", "pull")
        #expect(result.status == 0, "\(result)")
        try JSONSchemaValidator.validate(result.stdout, against: "pull")
        let accounts = try #require(try JSONParser.parse(result.stdout)["accounts"]?.arrayValue)
        return try #require(accounts.first)
    }

    /// The budget (DESIGN.md): a second pull of a 20,000-book library with a
    /// few changes costs at most 3 requests, and so does a second `lib get books`.
    @Test func aSecondPullOfTwentyThousandBooksWithAFewChangesCostsAtMostThreeRequests() throws {
        let logged = try LoggedServer(extraBooks: 20_000)
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: logged.server)
        try bob.login("bob", to: logged.server)
        var started = monotonicNow()
        var firstPull: JSONValue = .null
        let first = try logged.requests { firstPull = try Self.pull(alice) }
        #expect(firstPull["listed"] == true && firstPull["updated"] == 20_020, "\(firstPull)")
        print("first pull of 20,020 books: \(first.count) requests, \(monotonicNow() - started) s")
        #expect(first.count <= 25, "\(first)")

        #expect(try bob.lib("edit", "books/b-7", "title=Dune (bob)").status == 0)
        #expect(try bob.lib("edit", "books/g-00042", "author=Someone Else").status == 0)
        #expect(try bob.lib("edit", "books/b-3", "--delete").status == 0)
        #expect(try bob.lib("push").status == 0)

        var second: JSONValue = .null
        var pullSeconds = 0.0
        let sent = try logged.requests {
            started = monotonicNow()
            let result = try alice.lib("--json", "pull")
            pullSeconds = monotonicNow() - started
            second = try JSONParser.parse(result.stdout)["accounts"]?.arrayValue?.first ?? .null
        }
        started = monotonicNow()
        #expect(try alice.lib("get", "books/b-1").status == 0)
        let getSeconds = monotonicNow() - started
        print("second pull with 3 changes: \(sent.count) requests, \(pullSeconds) s; one online get: \(getSeconds) s")
        #expect(sent.count <= 3, "\(sent)")
        #expect(second["listed"] == false && second["updated"] == 2 && second["deleted"] == 1, "\(second)")

        var get: CommandResult?
        let collection = try logged.requests { get = try alice.lib("get", "books") }
        #expect(get?.status == 0, "\(get?.stderr ?? "")")
        #expect(try JSONParser.parse(get?.stdout ?? "")["items"]?.arrayValue?.count == 20_019)
        #expect(collection.count <= 3, "a second lib get books costs what changed: \(collection)")
        let offline = try alice.lib("get", "--offline", "books/g-00042")
        #expect(try JSONParser.parse(offline.stdout)["author"]?.stringValue == "Someone Else", "\(offline)")

        started = monotonicNow()
        let search = try alice.lib("search", "generated volume 1999")
        print("search over 20,019 books: \(monotonicNow() - started) s")
        #expect(try JSONParser.parse(search.stdout)["items"]?.arrayValue?.first?["id"]?.stringValue == "g-01999", "\(search)")
    }

    /// A first pull of 20,020 books killed (SIGKILL) three times goes on
    /// where it stopped: each run lists on from its last stored page, writes
    /// made on the server meanwhile come through the feed, search and get
    /// --offline answer from what was stored after each kill, and in the
    /// end the device has the server's books, book for book (issues 36, 39).
    @Test func aKilledFirstPullResumesWhereItStopped() throws {
        let logged = try LoggedServer(extraBooks: 20_000)
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: logged.server)
        try bob.login("bob", to: logged.server)
        func pages() -> [String] { logged.requests.filter { $0.hasPrefix("GET /v1/books?") } }
        for round in 1...3 {
            let before = pages().count
            let pull = try alice.start(["pull"])
            // A page is asked for once the one before it is read (ListingPrefetch):
            // a third page asked means the first is stored.
            #expect(waitUntil(timeout: 60) { pages().count >= before + 3 } != nil, "round \(round): \(pages())")
            kill(pull.processIdentifier, SIGKILL)
            pull.waitUntilExit()
            #expect(try bob.lib("edit", "books/g-0000\(round)", "author=Changed \(round)", "--push").status == 0)
            #expect(try alice.lib("get", "--offline", "books/b-1").status == 0, "round \(round)")
            #expect(try alice.lib("search", "pride").stdout.contains("b-1"), "round \(round)")
        }
        // The last run goes on from the place the killed ones stored, as its
        // own trace (-v) shows: its first page is the one after that place,
        // and it asks for no page before it.
        let account = alice.account("alice", on: logged.server)
        let place = try CommandRunner.run("/usr/bin/sqlite3", [alice.storePath(account),
            "SELECT json_extract(value, '$.after') FROM meta WHERE key = 'listing:books'"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!place.isEmpty, "the killed runs stored some pages")
        let traced = try alice.lib("-v", "--json", "pull")
        #expect(traced.status == 0, "\(traced)")
        let tracedPages = traced.stderr.split(separator: "\n").filter { $0.hasPrefix("lib: GET ") && $0.contains("/v1/books?") }
        #expect(tracedPages.first?.contains("&after=\(place) ") == true, "\(place): \(tracedPages.first ?? "")")
        let left = try CommandRunner.run("/usr/bin/sqlite3", [logged.server.databasePath,
            "SELECT count(*) FROM books WHERE document IS NOT NULL AND id > '\(place)'"]).stdout
        let leftPages = ((Int(left.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) + 999) / 1000
        #expect(tracedPages.count == max(1, leftPages), "\(tracedPages.count) pages asked for \(left) books left")
        let last = try #require(try JSONParser.parse(traced.stdout)["accounts"]?.arrayValue?.first)
        #expect(last["listed"] == true, "\(last)")
        // 21 pages in all; a killed run may have asked for the page it died
        // storing and the one it read ahead (ListingPrefetch).
        let asked = pages().map { $0.split(separator: " ")[1] }
        #expect(asked.count <= 21 + 2 * 3 && Set(asked).count == 21, "\(asked.count) asked, \(Set(asked).count) different")
        let device = try CommandRunner.run("/usr/bin/sqlite3", [alice.storePath(account),
            "SELECT path, etag FROM documents WHERE path LIKE 'books/%' ORDER BY path"]).stdout
        let server = try CommandRunner.run("/usr/bin/sqlite3", [logged.server.databasePath,
            "SELECT 'books/' || id, etag FROM books WHERE document IS NOT NULL ORDER BY id"]).stdout
        #expect(device == server, "the device's library is the server's")
        #expect(device.split(separator: "\n").count == 20_020)
        let changed = try JSONParser.parse(try alice.lib("get", "--offline", "books/g-00002").stdout)
        #expect(changed["author"]?.stringValue == "Changed 2", "\(changed)")

        // A cut list says so: in the JSON, and under the table on a terminal.
        let cut = try JSONParser.parse(try alice.lib("search", "generated", "--limit", "5").stdout)
        #expect(cut["items"]?.arrayValue?.count == 5 && cut["total"] == 20_000 && cut["truncated"] == true, "\(cut["total"] ?? .null)")
        let table = try alice.onTerminal("search generated --limit 5", environment: ["NO_COLOR": "1", "PAGER": "cat"])
        #expect(table.stdout.contains("5 of 20,000 books — use --limit to see more."), "\(table)")
    }

    @Test func aDeletionReachesTheDeviceAndPendingWritesStayOnTop() throws {
        let logged = try LoggedServer()
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: logged.server)
        try bob.login("bob", to: logged.server)
        #expect(try Self.pull(alice)["updated"] == 20)
        #expect(try alice.lib("edit", "books/b-7", "title=Mine").status == 0)
        #expect(try bob.lib("edit", "books/b-7", "author=F. Herbert").status == 0)
        #expect(try bob.lib("edit", "books/b-3", "--delete").status == 0)
        #expect(try bob.lib("push").status == 0)

        let second = try Self.pull(alice)
        #expect(second["updated"] == 1 && second["deleted"] == 1, "\(second)")
        let gone = try alice.lib("get", "--offline", "books/b-3")
        #expect(gone.status == 1, "the deletion reached the device: \(gone)")
        let b7 = try JSONParser.parse(try alice.lib("get", "--offline", "books/b-7").stdout)
        #expect(b7["title"]?.stringValue == "Mine", "the unsent write stays on top")
        #expect(b7["author"]?.stringValue == "F. Herbert", "under it, the server's new version")
        #expect(b7["_pending"]?["changes"] == 1)
        let books = try JSONParser.parse(try alice.lib("get", "--offline", "books").stdout)["items"]?.arrayValue ?? []
        #expect(books.count == 19 && !books.contains { $0["id"]?.stringValue == "b-3" })
        #expect(try alice.lib("status", "--porcelain").stdout.contains("pending 1\n"))
        // The write still goes against the version alice saw, not the one
        // pulled under it: the server merges it with bob's change and says so.
        let push = try alice.lib("push")
        #expect(push.status == 0 && push.stdout.contains("books/b-7: merged with bob's change to author"), "\(push)")
        let strict = try alice.lib("edit", "books/b-7", "title=Mine again")
        #expect(strict.status == 0, "\(strict)")
        #expect(try bob.lib("edit", "books/b-7", "author=Frank Herbert", "--push").status == 0)
        #expect(try Self.pull(alice)["updated"] == 1)
        let whole = try alice.lib("push", "--strict")
        #expect(whole.status == 3 && (whole.stdout + whole.stderr).contains("conflict"), "\(whole)")
    }

    @Test func aCursorTooOldForTheServerMakesLibListAgain() throws {
        let logged = try LoggedServer(arguments: ["--change-retention", "0"])
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: logged.server)
        try bob.login("bob", to: logged.server)
        #expect(try Self.pull(alice)["listed"] == true)
        #expect(try bob.lib("edit", "books/b-3", "--delete").status == 0)
        #expect(try bob.lib("push").status == 0)
        usleep(20_000)
        // Pruned by the next write: the server can no longer say b-3 went away.
        #expect(try bob.lib("edit", "books/b-4", "title=Four").status == 0)
        #expect(try bob.lib("push").status == 0)
        var again: JSONValue = .null
        let sent = try logged.requests { again = try Self.pull(alice) }
        #expect(sent.contains { $0.hasPrefix("GET /v1/changes?") && $0.contains(" 410 ") }, "\(sent)")
        #expect(again["listed"] == true && again["deleted"] == 1, "\(again)")
        #expect(try alice.lib("get", "--offline", "books/b-3").status == 1)
        #expect(try JSONParser.parse(try alice.lib("get", "--offline", "books/b-4").stdout)["title"]?.stringValue == "Four")
    }

    @Test func searchFindsAPendingEditsNewTextNotAPendingDeleteWithoutNetworkOrKeyring() throws {
        let logged = try LoggedServer()
        let alice = try LibHarness()
        try alice.login("alice", to: logged.server)
        _ = try Self.pull(alice)
        #expect(try alice.lib("edit", "books/b-7", "title=Arrakis Chronicles").status == 0)
        #expect(try alice.lib("edit", "books/b-1", "--delete").status == 0)
        _ = logged.server.stop()
        let noKeyring = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_RUNTIME_DIR": "/nonexistent"]
        func search(_ words: String...) throws -> CommandResult {
            // No network at all: a namespace of its own (unshare -rn) whose only link is down.
            try CommandRunner.run("/usr/bin/unshare", ["-rn", BuiltProducts.path("lib"), "--json", "search"] + words,
                                  environment: alice.environment.merging(noKeyring) { $1 })
        }
        let found = try search("arrak")
        #expect(found.status == 0, "\(found)")
        try JSONSchemaValidator.validate(found.stdout, against: "search")
        let items = try JSONParser.parse(found.stdout)["items"]?.arrayValue ?? []
        #expect(items.map { $0["id"]?.stringValue } == ["b-7"], "\(found)")
        #expect(items.first?["_pending"]?["changes"] == 1)
        #expect(try JSONParser.parse(try search("dune").stdout)["items"]?.arrayValue?.isEmpty == true, "not by its old title")
        let deleted = try search("pride")
        #expect(try JSONParser.parse(deleted.stdout)["items"]?.arrayValue?.isEmpty == true, "a pending delete is not found: \(deleted)")
        #expect(try search("herbert").stdout.contains("Arrakis Chronicles"), "the author still matches the edited book")

        let table = try alice.onTerminal("search herbert", columns: 60, environment: ["NO_COLOR": "1", "LIB_PAGER": "cat"])
        #expect(table.stdout.contains("ID") && table.stdout.contains("TITLE") && table.stdout.contains("b-7"), "\(table)")
        // script(1) ends lines with \r\n, one Character in Swift.
        #expect(table.stdout.split(whereSeparator: \.isNewline).allSatisfy { $0.count <= 60 }, "\(table)")
        let usage = try alice.lib("search", "--")
        #expect(usage.status == 2, "\(usage)")
        #expect(try alice.lib("search", "x", "--sort", "colour").status == 2)
    }

    @Test func pullAllPullsEverySignedInAccountAndNamesEachOnesProblem() throws {
        let logged = try LoggedServer()
        let lib = try LibHarness()
        try lib.login("alice", to: logged.server)
        try lib.login("bob", to: logged.server)
        let all = try lib.lib("--json", "pull", "--all")
        #expect(all.status == 0, "\(all)")
        try JSONSchemaValidator.validate(all.stdout, against: "pull")
        let accounts = try JSONParser.parse(all.stdout)["accounts"]?.arrayValue ?? []
        #expect(Set(accounts.compactMap { $0["account"]?.stringValue })
                == [lib.account("alice", on: logged.server), lib.account("bob", on: logged.server)], "\(all)")
        #expect(accounts.allSatisfy { $0["listed"] == true && $0["updated"] == 20 }, "\(all)")
        _ = logged.server.stop()
        let down = try lib.lib("pull", "--all")
        #expect(down.status == 75, "\(down)")
        let lines = down.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains("connection refused") }, "\(down)")
        #expect(lines.contains { $0.hasPrefix("lib: \(lib.account("alice", on: logged.server)): ") }, "\(down)")
        #expect(lines.contains { $0.hasPrefix("lib: \(lib.account("bob", on: logged.server)): ") }, "\(down)")
    }

    @Test func aFirstPullOnATerminalShowsItsProgress() throws {
        let logged = try LoggedServer()
        let alice = try LibHarness()
        try alice.login("alice", to: logged.server)
        let pull = try alice.onTerminal("pull")
        #expect(pull.stdout.contains("Listing books from \(logged.server.host):\(logged.server.port): 100% (20/20)"), "\(pull)")
        #expect(pull.stdout.contains("Pulled books for \(alice.account("alice", on: logged.server)): listed 20 books."), "\(pull)")
        let quiet = try alice.lib("-q", "pull")
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
        _ = logged.server.stop()
        let offline = try alice.lib("-q", "pull")
        #expect(offline.status == 75 && offline.stderr.isEmpty, "-q: a temporary failure says nothing: \(offline)")
        #expect(try alice.lib("pull").stderr.contains("connection refused"))
    }
}

/// `push --watch` keeps the library fresh: it pulls when it starts, right
/// after a push, and while idle every LIB_WATCH_PULL_INTERVAL seconds.
@Suite struct WatchPullTests {
    @Test func theWatcherPullsAtStartAfterEachPushAndWhileIdle() throws {
        let server = try startDemoServer()
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: server)
        try bob.login("bob", to: server)
        func aliceSees(_ path: String) throws -> JSONValue? {
            let get = try alice.lib("get", "--offline", path)
            return get.status == 0 ? try JSONParser.parse(get.stdout) : nil
        }
        // (JSONValue is ExpressibleByNilLiteral: compare the exit status, not the value with nil.)
        func aliceHas(_ path: String) throws -> Bool { try alice.lib("get", "--offline", path).status == 0 }
        let watcher = try RunningWatcher(alice, environment: ["LIB_WATCH_PULL_INTERVAL": "1"])
        #expect(try waitUntil(timeout: 30) { try aliceHas("books/b-20") } != nil, "pulled at start\n\(watcher.stderr)")

        // While idle: bob's change reaches alice's device within the interval.
        #expect(try bob.lib("edit", "books/b-3", "--delete").status == 0)
        #expect(try bob.lib("push").status == 0)
        #expect(try waitUntil(timeout: 30) { try !aliceHas("books/b-3") } != nil, "\(watcher.stderr)")
        #expect(watcher.terminate() == 0)

        // Without the idle pull, a push brings what others changed right after it.
        let quiet = try RunningWatcher(alice, environment: ["LIB_WATCH_PULL_INTERVAL": "0"], name: "quiet")
        #expect(quiet.waitUntilWatching() && quiet.waitUntilAsleepWithoutTimeout(), "\(quiet.stderr)")
        #expect(try bob.lib("edit", "books/b-4", "title=Bob's four").status == 0)
        #expect(try bob.lib("push").status == 0)
        sleep(1)
        #expect(try aliceSees("books/b-4")?["title"]?.stringValue != "Bob's four", "no pull while idle with the interval off")
        #expect(try alice.lib("edit", "books/wp-1", "--create", "title=Mine").status == 0)
        #expect(try waitUntil(timeout: 30) { try aliceSees("books/b-4")?["title"]?.stringValue == "Bob's four" } != nil,
                "\(quiet.stderr)")
        #expect(quiet.terminate() == 0)
        #expect(quiet.stderr == "lib: Pushed 1 write to 127.0.0.1:\(server.port) as \(alice.account("alice", on: server)).\n",
                "pulls are quiet: \(quiet.stderr)")
    }
}
