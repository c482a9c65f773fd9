import Foundation
import Testing
import TestSupport

/// What NetworkManager says changes what push says and when it tries:
/// python3-dbusmock's NetworkManager on a private system bus, its
/// properties changed while lib runs.
@Suite(.enabled(if: MockNetworkManager.isSupported, MockNetworkManager.skipReason))
struct NetworkManagerPushTests {
    @Test func aFailureWhileNetworkManagerReportsAPortalNamesThePortal() throws {
        let nm = try MockNetworkManager()
        let server = try startDemoServer()
        let alice = try LibHarness()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = nm.address
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/np-0", "--create", "title=Sent").status == 0)
        #expect(try alice.lib("push").status == 0)
        #expect(try alice.lib("status").status == 0)
        #expect(nm.propertyReads == 0, "NetworkManager asked before any failure:\n\(nm.calls)")

        #expect(try alice.lib("edit", "books/np-1", "--create", "title=Portal").status == 0)
        server.stop()
        try nm.setConnectivity(.portal)
        let push = try alice.lib("push")
        #expect(push.status == 75, "\(push)")
        #expect(push.stderr.hasPrefix("lib: NetworkManager reports a captive portal: sign in to the network. Couldn't reach 127.0.0.1:\(server.port): connection refused"), "\(push)")
        #expect(nm.propertyReads == 1, "\(nm.calls)")
        try nm.setConnectivity(.limited)
        let limited = try alice.lib("push")
        #expect(limited.status == 75 && limited.stderr.contains("NetworkManager reports limited connectivity"), "\(limited)")
        // Full connectivity: the plain explanation, as without NetworkManager.
        try nm.setConnectivity(.full)
        let full = try alice.lib("push")
        #expect(full.status == 75 && full.stderr.hasPrefix("lib: Couldn't reach 127.0.0.1:\(server.port): connection refused"), "\(full)")
    }

    /// Every command that fails on the network explains it as push does
    /// (issue 24): get, an edit that must fetch, login, doctor.
    @Test func everyCommandThatFailsOnTheNetworkNamesThePortal() throws {
        let nm = try MockNetworkManager()
        let server = try startDemoServer()
        let alice = try LibHarness()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = nm.address
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-7").status == 0)
        #expect(try alice.lib("status", "--prompt").status == 0)
        #expect(nm.propertyReads == 0, "NetworkManager asked before any failure:\n\(nm.calls)")
        server.stop()
        try nm.setConnectivity(.portal)
        let portal = "NetworkManager reports a captive portal: sign in to the network."
        let fresh = try alice.lib("get", "books/b-7", "--fresh")
        #expect(fresh.status == 75 && fresh.stderr.contains(portal), "\(fresh)")
        let fallback = try alice.lib("get", "books/b-7")
        #expect(fallback.status == 0 && fallback.stderr.contains("Showing the copy") && fallback.stderr.contains(portal), "\(fallback)")
        let unseen = try alice.lib("edit", "books/b-9", "copies:=1")
        #expect(unseen.status == 75 && unseen.stderr.contains(portal), "\(unseen)")
        let login = try alice.lib("login", server.baseURL, "--user", "bob", "--password-stdin", stdin: "bob-demo\n")
        #expect(login.status == 75 && login.stderr.contains(portal), "\(login)")
        // The prompt never asks NetworkManager, even now.
        let reads = nm.propertyReads
        #expect(try alice.lib("status", "--prompt").status == 0)
        #expect(nm.propertyReads == reads, "\(nm.calls)")
    }

    @Test func pushWaitDoesNotRetryIntoAPortalAndPushesOnceConnectivityIsFull() throws {
        let nm = try MockNetworkManager()
        let dir = try TemporaryDirectory("lib-e2e-server")
        let log = dir.file("server.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let server = try ServerProcess(database: dir.file("server.sqlite"),
                                       extraArguments: ["--verbose", "--fault", "status=503,path=/v2/writes,times=1"],
                                       standardError: FileHandle(forWritingAtPath: log))
        let alice = try LibHarness()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = nm.address
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/nw-1", "--create", "title=Portal").status == 0)
        try nm.setConnectivity(.portal)
        func puts() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("POST /v2/writes ") }.count
        }

        // Its deadline is far off: only NetworkManager's signal can end the wait in time.
        let push = try alice.start(["push", "--wait", "120"])
        // It tries once (NetworkManager can be wrong), then waits.
        #expect(waitUntil(timeout: 30) { puts() == 1 } != nil)
        // A window in which a retry must not happen: a busy machine can only
        // hide a retry here, never make one up.
        sleep(3)
        #expect(puts() == 1, "retried into the portal: \(puts()) batches")
        try nm.setConnectivity(.full)
        let took = try waitUntil(timeout: 60) { try serverVersions(server, "nw-1") == 1 }
        #expect(took != nil, "not pushed after connectivity turned full")
        #expect(ChildProcessExit.wait(for: push, timeout: 30))
        push.waitUntilExit()
        #expect(push.terminationStatus == 0)
        #expect(puts() == 2)
    }

    @Test func meteredDeferHoldsTheWatcherUntilTheConnectionIsNotMetered() throws {
        let nm = try MockNetworkManager()
        try nm.setMetered(true)
        let server = try startDemoServer()
        let alice = try LibHarness()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = nm.address
        try alice.login("alice", to: server)
        let watcher = try RunningWatcher(alice, environment: ["LIB_METERED": "defer"])
        #expect(try alice.lib("edit", "books/nm-1", "--create", "title=Metered").status == 0)
        #expect(watcher.waitForLine(containing: "the connection is metered (LIB_METERED=defer)"), "\(watcher.stderr)")
        // Held: asleep until NetworkManager says something (no timer that could push).
        #expect(watcher.waitUntilAsleepWithoutTimeout(), "\(watcher.stderr)")
        #expect(try serverVersions(server, "nm-1") == 0, "held while metered")
        #expect(try alice.lib("get", "--offline", "books/b-1").status == 1, "no pull while metered either")

        // --wait off a terminal is held too; a push asked for by hand is not.
        let cron = try alice.lib(["push", "--wait", "2"], environment: ["LIB_METERED": "defer"])
        #expect(cron.status == 75 && cron.stderr.contains("metered"), "\(cron)")
        #expect(try serverVersions(server, "nm-1") == 0)
        #expect(try alice.lib("edit", "books/nm-2", "--create", "title=Metered").status == 0)
        try nm.setMetered(false)
        let took = try waitUntil(timeout: 30) { try serverVersions(server, "nm-1") == 1 && serverVersions(server, "nm-2") == 1 }
        #expect(took != nil, "not pushed after the connection stopped being metered\n\(watcher.stderr)")
        #expect(try waitUntil(timeout: 30) { try alice.lib("get", "--offline", "books/b-1").status == 0 } != nil,
                "pulled once the connection stopped being metered")
        #expect(watcher.terminate() == 0)

        try nm.setMetered(true)
        #expect(try alice.lib("edit", "books/nm-3", "--create", "title=By hand").status == 0)
        let byHand = try alice.lib(["push"], environment: ["LIB_METERED": "defer"])
        #expect(byHand.status == 0, "\(byHand)")
        #expect(try serverVersions(server, "nm-3") == 1)
    }

    @Test func theWatcherWaitsForNetworkManagerInsteadOfRetryingIntoAPortal() throws {
        let nm = try MockNetworkManager()
        let dir = try TemporaryDirectory("lib-e2e-server")
        let log = dir.file("server.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let server = try ServerProcess(database: dir.file("server.sqlite"),
                                       extraArguments: ["--verbose", "--fault", "status=503,path=/v2/writes,times=1"],
                                       standardError: FileHandle(forWritingAtPath: log))
        let alice = try LibHarness()
        alice.extraEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = nm.address
        try alice.login("alice", to: server)
        try nm.setConnectivity(.portal)
        func puts() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("POST /v2/writes ") }.count
        }
        let watcher = try RunningWatcher(alice)
        #expect(try alice.lib("edit", "books/nx-1", "--create", "title=Portal").status == 0)
        #expect(watcher.waitForLine(containing: "NetworkManager reports a captive portal: sign in to the network."), "\(watcher.stderr)")
        // A window in which a retry must not happen (a busy machine can only hide one).
        sleep(3)
        #expect(puts() == 1, "retried into the portal: \(puts()) batches")
        // Before the 60 s in which it doubts NetworkManager, only its signal can wake the watcher.
        try nm.setConnectivity(.full)
        let took = try waitUntil(timeout: 40) { try serverVersions(server, "nx-1") == 1 }
        #expect(took != nil, "not pushed after connectivity turned full\n\(watcher.stderr)")
        #expect(watcher.terminate() == 0)
        #expect(puts() == 2)
    }
}
