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

    static func storeBytes(_ path: String) throws -> Int {
        ["", "-wal"].reduce(0) { sum, suffix in
            sum + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }
}
