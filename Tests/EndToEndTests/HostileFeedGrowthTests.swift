import Foundation
import Testing
import TestSupport

/// Growth bounded across pulls, not per pull (issue 47): behind a proxy
/// that forwards everything to the real lib-server but answers the change
/// feed with a page of 1,000 new books that never ends, pull after pull and
/// a watcher left running keep the store within what the library's listing
/// allows, and the watcher backs off after a stop and says so once.
/// (Before: each pull stored about 2.3 times what it read, 128 MB read a
/// pull, and the watcher's store reached 523 MB in 105 s.)
@Suite(.serialized) struct HostileFeedGrowthTests {
    static let stoppedWords = "at a change feed that carried more than the whole library's listing right after it"

    /// The real server, but for a change feed after a cursor, which never ends.
    static func endlessFeedProxy(_ server: ServerProcess) throws -> ScriptedPeer {
        try ScriptedPeer { n, request in
            if request.hasPrefix("GET /v1/changes?") && request.prefix(while: { $0 != "\r" }).contains("since=") {
                return HostilePullTests.answer(.endlessFeed, n, request)
            }
            return HostilePullTests.forward(request, to: server.port)
        }
    }

    static func signIn(_ harness: LibHarness, through proxy: ScriptedPeer) throws -> String {
        let login = try harness.lib("login", "http://127.0.0.1:\(proxy.port)", "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        return "alice@127.0.0.1:\(proxy.port)"
    }

    static func books(_ harness: LibHarness, _ account: String) throws -> Int {
        Int(try harness.sql(account, "SELECT count(*) FROM documents WHERE path LIKE 'books/%'")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func pullAfterPullTheStoreStaysWithinWhatTheListingAllows() throws {
        let server = try startDemoServer()
        let proxy = try Self.endlessFeedProxy(server)
        let alice = try LibHarness()
        let account = try Self.signIn(alice, through: proxy)
        // Each invented book is about 80 bytes of feed: 1 MB past the listing is about 13,000 of them.
        let allowed = try Self.books(alice, account) + (1 << 20) / 70
        var sizes: [Int] = [], counts: [Int] = []
        for _ in 1...6 {
            let pull = try alice.lib("pull")
            #expect(pull.status == 75, "\(pull)")
            #expect(pull.stderr.contains("Stopped pulling from 127.0.0.1:\(proxy.port) \(Self.stoppedWords)"), "\(pull)")
            sizes.append(try HostilePullTests.storeBytes(alice.storePath(account)))
            counts.append(try Self.books(alice, account))
        }
        print("endless feed, six pulls: books stored \(counts), store bytes \(sizes)")
        #expect(counts.allSatisfy { $0 <= allowed }, "\(counts) books; a listing allows \(allowed)")
        #expect(sizes.last! <= sizes.first! + 2 * 1024 * 1024, "the store grew from \(sizes.first!) to \(sizes.last!) bytes")
        // The library's own books are all there, current.
        #expect(try alice.sql(account, "SELECT count(*) FROM documents WHERE path LIKE 'books/b-%'")
            .trimmingCharacters(in: .whitespacesAndNewlines) == String(try serverBookCount(server)))
    }

    @Test func theWatcherBacksOffAfterAStopAndSaysSoOnce() throws {
        let server = try startDemoServer()
        let proxy = try Self.endlessFeedProxy(server)
        let alice = try LibHarness()
        let account = try Self.signIn(alice, through: proxy)
        let started = monotonicNow()
        let watcher = try RunningWatcher(alice, environment: ["LIB_WATCH_PULL_INTERVAL": "2"])
        // Held 2 s after the first stop, 4 s after the second, 8 s after the third.
        Thread.sleep(forTimeInterval: 12)
        #expect(watcher.terminate() == 0)
        let took = monotonicNow() - started
        let listings = proxy.receivedRequests.filter { $0.hasPrefix("GET /v1/books?") }.count
        let said = watcher.stderr.components(separatedBy: Self.stoppedWords).count - 1
        let size = try HostilePullTests.storeBytes(alice.storePath(account))
        print("endless feed, watcher for \(Int(took)) s: \(listings) listings, stop said \(said) times, store \(size / 1024) KB, \(try Self.books(alice, account)) books")
        #expect(said == 1, "\(watcher.stderr)")
        #expect(watcher.stderr.contains("The watcher pulls again in 2 s, later each time this happens again."), "\(watcher.stderr)")
        // Pulls at 0, 2 and 6 s (and 14 s, had it run on); retrying as a temporary failure made one every 0.25–30 s.
        #expect(listings >= 2 && listings <= 4, "\(listings) listings in \(took) s")
        #expect(size < 16 * 1024 * 1024, "store \(size) bytes")
    }

    func serverBookCount(_ server: ServerProcess) throws -> Int {
        let live = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath, "SELECT count(*) FROM books WHERE document IS NOT NULL"])
        return Int(live.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
