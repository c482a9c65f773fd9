import Foundation
import Testing
import TestSupport

/// `lib push --watch`: pushes soon after each saved write and when the
/// server or the route comes back, under the push lock, quietly, and stops
/// cleanly on SIGTERM, SIGINT or SIGHUP.
@Suite struct PushWatchTests {
    /// Asleep with nothing due, the watcher has no timer that could push:
    /// the edit arriving at all is the store's inotify event waking it.
    @Test func anEditWakesTheWatcherAndReachesTheServer() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let watcher = try RunningWatcher(alice)
        #expect(watcher.waitUntilWatching() && watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        #expect(watcher.stderr.isEmpty, "nothing to do, nothing said: \(watcher.stderr)")

        #expect(try alice.lib("edit", "books/wa-1", "--create", "title=Watched").status == 0)
        let took = try waitUntil(timeout: 30) { try serverVersions(server, "wa-1") == 1 }
        #expect(took != nil, "never arrived\n\(watcher.stderr)")

        // A burst of edits goes in one push, one line.
        for index in 0..<5 {
            #expect(try alice.lib("edit", "books/wa-\(index + 2)", "--create", "title=Burst").status == 0)
        }
        #expect(try waitUntil(timeout: 30) { try alice.pending() == 0 } != nil)
        #expect(watcher.terminate() == 0)
        let lines = watcher.stderr.split(separator: "\n")
        let account = alice.account("alice", on: server)
        #expect(lines.first == "lib: Pushed 1 write to 127.0.0.1:\(server.port) as \(account).", "\(watcher.stderr)")
        #expect(lines.count <= 3, "one line per push: \(watcher.stderr)")
        #expect(!watcher.stderr.contains("\u{1B}"), "no colour")
        for index in 1...6 { #expect(try serverVersions(server, "wa-\(index)") == 1) }
    }

    @Test func aWriteMadeWhileTheServerIsDownArrivesAfterItsReturn() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let watcher = try RunningWatcher(alice)
        #expect(watcher.waitUntilWatching(), "\(watcher.stderr)")
        server.stop()
        #expect(try alice.lib("edit", "books/wd-1", "--create", "title=Down").status == 0)
        #expect(watcher.waitForLine(containing: "connection refused"), "\(watcher.stderr)")
        // The outage lasts a few retries (the backoff reaches its 1.5 s cap):
        // a condition the test sets up, not a wait for something to happen.
        sleep(3)
        let restarted = try server.restarted()
        // Past the 1.5 s backoff, only a watcher that stopped retrying misses a 30 s bound.
        let took = try waitUntil(timeout: 30) { try serverVersions(restarted, "wd-1") == 1 }
        #expect(took != nil, "never arrived after the server came back\n\(watcher.stderr)")
        #expect(watcher.terminate() == 0)
        // The outage is said once, not at every retry; then the push.
        let refused = watcher.stderr.components(separatedBy: "connection refused").count - 1
        #expect(refused == 1, "\(watcher.stderr)")
        #expect(watcher.stderr.hasSuffix("lib: Pushed 1 write to 127.0.0.1:\(server.port) as \(alice.account("alice", on: server)).\n"),
                "\(watcher.stderr)")
    }

    @Test(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
    func offlineAWriteIsPushedWhenTheRouteComesBack() throws {
        let net = try OfflineMachine()
        let harness = LibHarness(home: net.home)
        let env = ProcessInfo.processInfo.environment
        var pass: [String: String] = [:]
        for key in ["DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_RUNTIME_DIR"] { pass[key] = env[key] }
        let watcher = try RunningWatcher(harness, environment: pass,
                                         launcher: [NetworkNamespace.ip, "netns", "exec", net.namespace.name])
        try net.removeRoute()
        #expect(try net.lib("edit", "books/wn-1", "--create", "title=Offline").status == 0)
        #expect(watcher.waitForLine(containing: "You're offline"), "\(watcher.stderr)")
        // Offline, it waits for a route event, on no timer.
        #expect(watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        #expect(try net.history("wn-1") == 0)
        try net.addRoute()
        let took = try waitUntil(timeout: 30) { try net.history("wn-1") == 1 }
        #expect(took != nil, "not pushed after the route came back\n\(watcher.stderr)")
        #expect(watcher.terminate() == 0)
    }

    @Test func twoWatchersAndAManualPushSendEachOfTwentyWritesOnce() throws {
        let server = try startDemoServer(arguments: ["--fault", "delay=20,method=PUT"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let first = try RunningWatcher(alice, name: "first")
        let second = try RunningWatcher(alice, name: "second")
        let books = (0..<20).map { "wt-\($0)" }
        let manual = DispatchGroup()
        for (index, book) in books.enumerated() {
            #expect(try alice.lib("edit", "books/\(book)", "--create", "title=Twice?").status == 0)
            if index % 5 == 4 {
                OwnThread.start(in: manual) { _ = try? alice.lib("push") }
            }
        }
        manual.wait()
        #expect(try waitUntil(timeout: 60) { try alice.pending() == 0 } != nil)
        #expect(first.terminate() == 0)
        #expect(second.terminate() == 0)
        let order = try serverWriteOrder(server, user: "alice")
        #expect(order.count == 20, "\(order)")
        #expect(Set(order) == Set(books))
        for book in books { #expect(try serverVersions(server, book) == 1, "\(book)") }
    }

    /// SIGHUP (a closed terminal) stops it as SIGTERM does (issue 23; it died with 129).
    @Test(arguments: [SIGTERM, SIGHUP])
    func aStopSignalLetsTheRequestOnTheWireFinishAndExitsZeroWithNothingLost(signal: Int32) throws {
        // Two writes a batch, each batch slow: the stop comes between batches.
        let server = try startDemoServer(arguments: ["--max-batch-writes", "2", "--fault", "delay=400,path=/v2/writes"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let books = (0..<10).map { "ws-\($0)" }
        for book in books { #expect(try alice.lib("edit", "books/\(book)", "--create", "title=Stop").status == 0) }
        let watcher = try RunningWatcher(alice)
        #expect(try waitUntil(timeout: 30) { try serverVersions(server, "ws-0") == 1 } != nil)
        let status = watcher.terminate(signal)
        #expect(status == 0, "\(watcher.stderr)")
        let sent = try serverWriteOrder(server, user: "alice")
        let pending = try alice.pending()
        #expect(pending > 0, "it stopped after the request on the wire, not after the whole outbox")
        #expect(sent.count + pending == books.count, "nothing lost: \(sent.count) sent, \(pending) pending")
        #expect(try alice.integrityCheck(alice.account("alice", on: server)) == "ok")
        // What was left goes with the next push, and nothing twice.
        #expect(try alice.lib("push").status == 0)
        #expect(try serverWriteOrder(server, user: "alice") == books)
    }

    /// Idle after a push, the watcher sleeps in poll with no timeout and
    /// stays asleep: over two seconds its main thread blocks no more times
    /// (every timed wake-up would add one, and a busy machine adds none).
    @Test func idleItSleepsInPollWithoutTimeout() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/wi-1", "--create", "title=Idle").status == 0)
        let watcher = try RunningWatcher(alice)
        let pid = watcher.process.processIdentifier
        #expect(try waitUntil(timeout: 30) { try serverVersions(server, "wi-1") == 1 } != nil)
        #expect(watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        let before = ProcessState.voluntaryContextSwitches(pid)
        sleep(2)
        #expect(RunningWatcher.isAsleep(ProcessState.mainThreadPollTimeout(pid)))
        #expect(before != nil && ProcessState.voluntaryContextSwitches(pid) == before, "woke up while idle")
        #expect(watcher.terminate() == 0)
    }

    @Test func aRejectedTokenIsSaidOnceAndThatAccountIsNoLongerPushed() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let token = try keyringToken(server: server, user: "alice")
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.request("DELETE", "/v1/sessions/current", headers: [("Authorization", "Bearer \(token)")]).status == 204)
        let watcher = try RunningWatcher(alice)
        #expect(try alice.lib("edit", "books/wr-1", "--create", "title=Rejected").status == 0)
        #expect(watcher.waitForLine(containing: "has expired"), "\(watcher.stderr)")
        #expect(try alice.lib("edit", "books/wr-2", "--create", "title=Rejected").status == 0)
        sleep(2)
        #expect(watcher.terminate() == 0)
        #expect(watcher.stderr.components(separatedBy: "has expired").count - 1 == 1, "\(watcher.stderr)")
        #expect(try alice.pending() == 2)
    }

    @Test func aWatchedAccountThatLogsOutIsLetGo() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let watcher = try RunningWatcher(alice)
        #expect(watcher.waitUntilWatching(), "\(watcher.stderr)")
        #expect(try alice.lib("logout", "--yes").status == 0)
        #expect(ChildProcessExit.wait(for: watcher.process, timeout: 30), "\(watcher.stderr)")
        #expect(watcher.process.terminationStatus == 0)
        #expect(watcher.stderr == "lib: \(alice.account("alice", on: server)) was signed out; no longer pushing its writes.\n")
    }

    @Test func watchAndWaitDoNotGoTogether() throws {
        let alice = try LibHarness()
        let result = try alice.lib("push", "--watch", "--wait", "10")
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("lib: '--watch' and '--wait' cannot be used together"), "\(result)")
    }
}

/// `push --watch` at a terminal (issue 37): it says at once what it
/// watches, and a push that went is said without the `lib:` of a problem.
@Suite struct PushWatchAtATerminalTests {
    @Test func itSaysWhatItWatchesAndSuccessesCarryNoPrefix() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        #expect(try alice.lib("edit", "books/b-7", "title=Watched").status == 0)
        let lib = BuiltProducts.path("lib")
        // The watcher on a pseudo-terminal; stopped once the write is on the server (at most 30 s).
        let script = """
            stty cols 200 2>/dev/null
            \(lib) push --watch & watcher=$!
            tries=0
            until \(lib) status --porcelain | grep -q '^pending 0$' || [ $tries -ge 300 ]; do sleep 0.1; tries=$((tries + 1)); done
            kill -TERM $watcher; wait $watcher; echo "watcher ended $?"
            """
        let run = try CommandRunner.run("/usr/bin/script", ["-qec", script, "/dev/null"], environment: alice.environment, timeout: 60)
        let lines = run.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        #expect(lines.first == "Watching \(account): pushing each write saved here and pulling what changes on the server. Ctrl-C stops.",
                "\(run.stdout.debugDescription)")
        #expect(lines.contains("Pushed 1 write to 127.0.0.1:\(server.port) as \(account)."), "\(run.stdout.debugDescription)")
        #expect(!lines.contains { $0.hasPrefix("lib: ") }, "\(run.stdout.debugDescription)")
        #expect(lines.last == "watcher ended 0", "\(run.stdout.debugDescription)")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"Watched\"") == true)
    }
}
