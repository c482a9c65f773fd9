import Foundation
import LibJSON
import Testing
import TestSupport

/// `lib pull` against a stand-in that never lets it finish (issue 39): a
/// change feed that always has a full page more, a cursor that cycles, a
/// listing that never ends and a 6 MB cursor. Each pull ends within its
/// budget (LIB_PULL_MAX_BYTES, small here so that the trial is quick) with
/// exit 75 and the words that say why, the store grows by a bounded
/// amount, lib's memory stays under 64 MB, and the next pull against the
/// honest server succeeds.
@Suite(.serialized) struct HostilePullTests {
    enum Stand: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case endlessFeed, cyclingCursor, endlessListing, hugeCursor
        var testDescription: String { rawValue }
    }

    static let budget = 3 * 1024 * 1024

    /// A page of `count` small books with ids from `first`, as the feed or a listing carries them.
    static func books(from first: Int, count: Int, feed: Bool) -> String {
        (first..<first + count).map { n in
            let id = String(format: "h-%08d", n)
            let book = #"{"id":"\#(id)","title":"Hostile \#(n)""#
            return feed ? #"{"id":"\#(id)","etag":"\"1\"","document":\#(book)}}"# : #"\#(book),"etag":"\"1\""}"#
        }.joined(separator: ",")
    }

    static func json(_ body: String) -> ScriptedPeer.Reply {
        .send(httpResponse(200, "OK", headers: ["Content-Type: application/json"], body: body))
    }

    static func answer(_ stand: Stand, _ n: Int, _ request: String) -> ScriptedPeer.Reply {
        let line = request.prefix { $0 != "\r" }
        if line.hasPrefix("GET /v1/changes") {
            if !line.contains("since=") { return json(#"{"items":[],"next":"start"}"#) }
            switch stand {
            case .endlessFeed, .endlessListing:
                return json(#"{"items":[\#(books(from: n * 1000, count: 1000, feed: true))],"next":"c-\#(n)"}"#)
            case .cyclingCursor:
                return json(#"{"items":[\#(books(from: 0, count: 1000, feed: true))],"next":"\#(n % 2 == 0 ? "A" : "B")"}"#)
            case .hugeCursor:
                return json(#"{"items":[],"next":"\#(String(repeating: "x", count: 6 * 1024 * 1024))"}"#)
            }
        }
        if line.hasPrefix("GET /v1/books?") {
            return json(#"{"items":[\#(books(from: n * 1000, count: 1000, feed: false))],"next":"h-\#(String(format: "%08d", n * 1000 + 999))"}"#)
        }
        return .send(httpResponse(404, "Not Found", headers: ["Content-Type: application/problem+json"],
                                  body: #"{"type":"about:blank","title":"Not Found","status":404}"#))
    }

    @Test(arguments: Stand.allCases)
    func aPullThatTheServerWouldNeverEndEndsWithinItsBudget(_ stand: Stand) throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        // A 6 MB cursor is refused for what it is, not for the budget.
        alice.extraEnvironment["LIB_PULL_MAX_BYTES"] = String(stand == .hugeCursor ? 4 * Self.budget : Self.budget)
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("pull").status == 0)
        if stand == .endlessListing { try alice.sql(account, "DELETE FROM meta WHERE key LIKE 'changes_cursor:%'") }
        let storeBefore = try Self.storeBytes(alice.storePath(account))
        let port = UInt16(server.port)
        server.stop()

        var peer: ScriptedPeer? = try ScriptedPeer(port: port) { n, request in Self.answer(stand, n, request) }
        let requests = { peer?.receivedRequests.count ?? 0 }
        let timing = try TemporaryDirectory("lib-e2e-hostile-pull")
        let timed = try CommandRunner.run("/usr/bin/time", ["-f", "%M", "-o", timing.file("rss"), BuiltProducts.path("lib"), "pull"],
                                          environment: alice.environment, timeout: 120)
        #expect(timed.status == 75, "\(stand): \(timed)")
        switch stand {
        case .endlessFeed, .endlessListing:
            #expect(timed.stderr.contains("Stopped pulling from 127.0.0.1:\(port) after reading 3."), "\(timed)")
            #expect(timed.stderr.contains("(a pull reads at most 3.0 MB); what was pulled is kept on this device"), "\(timed)")
        case .cyclingCursor:
            #expect(timed.stderr.contains("Stopped pulling from 127.0.0.1:\(port) at a change-feed cursor it had given before"), "\(timed)")
            #expect(requests() < 6, "\(requests()) requests")
        case .hugeCursor:
            #expect(timed.stderr.contains("a cursor of 6291456 bytes, longer than the 4096 bytes lib keeps"), "\(timed)")
        }
        let peakKB = Int((try String(contentsOfFile: timing.file("rss"), encoding: .utf8)).split(separator: "\n").last ?? "") ?? -1
        #expect(peakKB > 0 && peakKB < 64 * 1024, "peak RSS \(peakKB) KB")
        let grown = try Self.storeBytes(alice.storePath(account)) - storeBefore
        #expect(grown < 8 * Self.budget, "the store grew \(grown) bytes")
        let cursor = try alice.sql(account, "SELECT coalesce(max(length(value)), 0) FROM meta WHERE key LIKE 'changes_cursor:%'")
        #expect((Int(cursor.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) <= 4096, "stored cursor: \(cursor.count) bytes")
        print("hostile pull, \(stand): \(requests()) requests, store +\(grown / 1024) KB, peak RSS \(peakKB) KB")

        // The honest server again: the next pull goes on from what was kept
        // (or lists again) and succeeds.
        peer = nil
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(port)")
        let again = try alice.lib("pull")
        #expect(again.status == 0, "\(stand): \(again)")
        _ = restarted
    }

    /// Ctrl-C during an endless pull ends it at once, by the signal (130 to
    /// a shell), keeping what was stored.
    @Test func sigintEndsAnEndlessPullAtOnce() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("pull").status == 0)
        let port = UInt16(server.port)
        server.stop()
        let peer = try ScriptedPeer(port: port) { n, request in Self.answer(.endlessFeed, n, request) }
        let pull = try alice.start(["pull"])
        #expect(waitUntil(timeout: 30) { peer.receivedRequests.count >= 4 } != nil)
        let signalled = monotonicNow()
        kill(pull.processIdentifier, SIGINT)
        pull.waitUntilExit()
        let took = monotonicNow() - signalled
        #expect(pull.terminationReason == .uncaughtSignal && pull.terminationStatus == SIGINT, "\(pull.terminationStatus)")
        // A generous bound: without the signal the pull would run to its budget.
        #expect(took < 3, "ended \(took) s after SIGINT")
        print("hostile pull: SIGINT ended it after \(took) s")
        #expect(try alice.integrityCheck(alice.account("alice", on: server)) == "ok")
    }

    /// `push --watch` behind a proxy whose change feed never ends: a write
    /// saved while the watcher pulls is pushed (the pull stops after a page
    /// for it), and the real server has it.
    @Test func theWatcherKeepsPushingWhileAHostileFeedIsServed() throws {
        let server = try startDemoServer()
        let proxy = try ScriptedPeer { n, request in
            if request.hasPrefix("GET /v1/changes?") { return Self.answer(.endlessFeed, n, request) }
            return Self.forward(request, to: server.port)
        }
        let alice = try LibHarness()
        let url = "http://127.0.0.1:\(proxy.port)"
        let login = try alice.lib("login", url, "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        #expect(try alice.lib("get", "books/b-7").status == 0)
        // A cursor, so that the watcher's first pull reads the endless feed.
        try alice.sql("alice@127.0.0.1:\(proxy.port)", "INSERT OR REPLACE INTO meta (key, value) VALUES ('changes_cursor:books', 'start')")
        let watcher = try RunningWatcher(alice)
        #expect(waitUntil(timeout: 30) { proxy.receivedRequests.filter { $0.hasPrefix("GET /v1/changes?") }.count >= 3 } != nil,
                "the watcher is pulling the endless feed")
        #expect(try alice.lib("edit", "books/b-7", "title=Pushed anyway").status == 0)
        let pushed = try waitUntil(timeout: 30) { try serverHistory(server, book: "b-7").last?.document?.contains("Pushed anyway") == true }
        #expect(pushed != nil, "the write was pushed while the feed went on\n\(watcher.stderr)")
        #expect(watcher.terminate() == 0)
    }

    /// Sends `request` (as ScriptedPeer read it) to the real server and
    /// gives back its answer, framed by Content-Length.
    static func forward(_ request: String, to port: Int) -> ScriptedPeer.Reply {
        guard let split = request.range(of: "\r\n\r\n") else { return .sendAndClose([]) }
        let lines = request[..<split.lowerBound].split(separator: "\r\n").map(String.init)
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count == 3 else { return .sendAndClose([]) }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            guard !["host", "content-length", "connection"].contains(name.lowercased()) else { return nil }
            return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let body = String(request[split.upperBound...])
        guard let answer = try? HTTPTestClient(port: port).request(parts[0], parts[1], headers: headers, body: body.isEmpty ? nil : body)
        else { return .sendAndClose([]) }
        let kept = answer.headers.filter { !["content-length", "connection", "transfer-encoding"].contains($0.0.lowercased()) }
        var head = "HTTP/1.1 \(answer.status) Answer\r\n" + kept.map { "\($0.0): \($0.1)\r\n" }.joined()
        head += "Content-Length: \(answer.body.count)\r\n\r\n"
        return .send(Array(head.utf8) + answer.body)
    }

    static func storeBytes(_ path: String) throws -> Int {
        ["", "-wal"].reduce(0) { sum, suffix in
            sum + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }
}
