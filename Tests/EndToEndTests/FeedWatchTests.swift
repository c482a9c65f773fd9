import Foundation
import LibJSON
import Testing
import TestSupport

/// `push --watch` and `pull --watch` keep one waiting change-feed request
/// per account (issue 40): a change pushed from one device reaches the
/// other devices' offline search as soon as it commits, not at the next
/// idle pull (15 minutes here); with the server killed and restarted, the
/// watchers come back by themselves.
@Suite struct FeedWatchTests {
    /// Whether `device`'s offline search finds `words` in book `id`.
    private static func finds(_ device: LibHarness, _ words: String, _ id: String) -> Bool {
        guard let search = try? device.lib("search", words), search.status == 0,
              let items = (try? JSONParser.parse(search.stdout))?["items"]?.arrayValue else { return false }
        return items.contains { $0["id"]?.stringValue == id }
    }

    @Test func aChangeReachesTheOtherDevicesUnderBothWatchersAndAfterARestart() throws {
        let server = try startDemoServer()
        let writer = try LibHarness(), reader = try LibHarness(), bob = try LibHarness()
        try writer.login("alice", to: server)
        try reader.login("alice", to: server)
        try bob.login("bob", to: server)
        let watchers = [try RunningWatcher(writer, name: "writer"),
                        try RunningWatcher(reader, arguments: ["pull", "--watch"], name: "reader"),
                        try RunningWatcher(bob, name: "bob")]
        for watcher in watchers {
            #expect(watcher.waitUntilWatching() && watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        }
        // Each watcher's first pull is done: the demo library is on every device.
        let pulled = waitUntil(timeout: 30) { Self.finds(reader, "dune", "b-7") && Self.finds(bob, "dune", "b-7") }
        #expect(pulled != nil, "the watchers' first pulls")

        #expect(try writer.lib("edit", "books/b-7", "title=Feed Watched Dune").status == 0)
        let took = waitUntil(timeout: 30) { Self.finds(reader, "feed watched", "b-7") && Self.finds(bob, "feed watched", "b-7") }
        print("a change pushed under push --watch was in the other devices' offline search after \(took.map { String(format: "%.2f", $0) } ?? "never") s")
        #expect(took != nil, "\(watchers.map(\.stderr))")

        server.stop()
        let restarted = try server.restarted()
        #expect(try bob.lib("edit", "books/b-3", "title=After The Restart").status == 0)
        let again = waitUntil(timeout: 30) { Self.finds(reader, "after the restart", "b-3") && Self.finds(writer, "after the restart", "b-3") }
        print("after a server restart: \(again.map { String(format: "%.2f", $0) } ?? "never") s")
        #expect(again != nil, "\(watchers.map(\.stderr))")
        for watcher in watchers { #expect(watcher.terminate() == 0, "\(watcher.stderr)") }
        _ = restarted
    }

    /// Two lib-server instances on one database (PostgreSQL under
    /// scripts/with-postgres.sh, else one SQLite file): the writer's device
    /// uses one, the reader's and bob's the other; the waiting feed requests
    /// on the second answer when the first commits.
    @Test func aChangeOnOneInstanceReachesWatchersOfTheOther() throws {
        let dir = try TemporaryDirectory("lib-e2e-server")
        let database = try TestDatabase.fresh(in: dir)
        let first = try ServerProcess(database: database, owning: dir)
        let second = try ServerProcess(database: database, owning: dir)
        let writer = try LibHarness(), reader = try LibHarness(), bob = try LibHarness()
        try writer.login("alice", to: first)
        try reader.login("alice", to: second)
        try bob.login("bob", to: second)
        let watchers = [try RunningWatcher(writer, name: "writer"),
                        try RunningWatcher(reader, arguments: ["pull", "--watch"], name: "reader"),
                        try RunningWatcher(bob, arguments: ["pull", "--watch"], name: "bob")]
        for watcher in watchers {
            #expect(watcher.waitUntilWatching() && watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        }
        let pulled = waitUntil(timeout: 30) { Self.finds(reader, "dune", "b-7") && Self.finds(bob, "dune", "b-7") }
        #expect(pulled != nil, "the watchers' first pulls")
        #expect(try writer.lib("edit", "books/b-7", "title=Across Instances").status == 0)
        let took = waitUntil(timeout: 30) { Self.finds(reader, "across instances", "b-7") && Self.finds(bob, "across instances", "b-7") }
        print("a change pushed to one instance was in the other instance's devices' offline search after \(took.map { String(format: "%.2f", $0) } ?? "never") s (\(TestDatabase.isPostgres ? "PostgreSQL" : "SQLite"))")
        #expect(took != nil, "\(watchers.map(\.stderr))")
        for watcher in watchers { #expect(watcher.terminate() == 0, "\(watcher.stderr)") }
    }
}
