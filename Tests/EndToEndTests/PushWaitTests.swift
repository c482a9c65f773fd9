import Foundation
import Testing
import TestSupport

/// `lib push --wait N`, the cron form: waits for a route (netlink), retries
/// an unreachable server with backoff, and gives up at the deadline with
/// the writes kept.
@Suite struct PushWaitTests {
    @Test func serverBackAfterThreeSecondsIsPushed() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/w-1", "--create", "title=Waiting").status == 0)
        server.stop()
        // The deadline only bounds the test: success is the retry after the server came back.
        let push = try alice.start(["push", "--wait", "60"])
        // The outage the push must sit through (a condition, not a wait for an event).
        sleep(3)
        let restarted = try server.restarted()
        #expect(ChildProcessExit.wait(for: push, timeout: 90))
        push.waitUntilExit()
        #expect(push.terminationStatus == 0)
        #expect(try serverHistory(restarted, book: "w-1").count == 1)
    }

    @Test func serverDownThroughoutGivesUpAtTheDeadline() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/w-2", "--create", "title=Waiting").status == 0)
        server.stop()
        let started = monotonicNow()
        let push = try alice.lib("push", "--wait", "10")
        let elapsed = monotonicNow() - started
        #expect(push.status == 75, "\(push)")
        #expect(push.stdout.isEmpty, "\(push)")
        #expect(push.stderr == "lib: Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down. 1 write is saved on this device.\n", "\(push)")
        // Not before the deadline; the upper bound tells a deadline from none on a busy machine.
        #expect(elapsed > 3 && elapsed < 30, "\(elapsed) s")
        #expect(try alice.pending() == 1)
    }

    /// `--wait 5` against a refused connection uses all 5 s: the attempt
    /// half a second before the deadline fails at once, and one more comes
    /// after it (it used to give up at 4.56 s).
    @Test func waitFiveOnARefusedConnectionWaitsTheWholeFiveSeconds() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/w-3", "--create", "title=Waiting").status == 0)
        server.stop()
        let started = monotonicNow()
        let push = try alice.lib("push", "--wait", "5")
        let elapsed = monotonicNow() - started
        #expect(push.status == 75, "\(push)")
        #expect(push.stderr == "lib: Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down. 1 write is saved on this device.\n", "\(push)")
        #expect(elapsed >= 5 && elapsed < 30, "\(elapsed) s")
        #expect(try alice.pending() == 1)
    }

    @Test(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
    func offlineUntilARouteAppearsThenPushedAtOnce() throws {
        let net = try OfflineMachine()
        try net.removeRoute()
        #expect(try net.lib("edit", "books/w-3", "--create", "title=Offline").status == 0)
        let started = monotonicNow()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: CommandResult?
        nonisolated(unsafe) var finished = 0.0
        // Without the route event it would wait out the 60 s and fail.
        OwnThread.start {
            result = try? net.lib("push", "--wait", "60")
            finished = monotonicNow()
            done.signal()
        }
        // Offline for a while (a condition the test sets up).
        sleep(2)
        try net.addRoute()
        let routed = monotonicNow()
        done.wait()
        #expect(result?.status == 0, "\(String(describing: result))")
        #expect(finished - routed < 30, "pushed \(finished - routed) s after the route appeared")
        #expect(routed - started >= 2)
        #expect(try net.history("w-3") == 1)
    }

    @Test(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
    func offlineThroughoutGivesUpAfterTheWait() throws {
        let net = try OfflineMachine()
        try net.removeRoute()
        #expect(try net.lib("edit", "books/w-4", "--create", "title=Offline").status == 0)
        let started = monotonicNow()
        let push = try net.lib("push", "--wait", "10")
        let elapsed = monotonicNow() - started
        #expect(push.status == 75, "\(push)")
        #expect(push.stderr.contains("You're offline (no network route to 203.0.113.1). 1 write is saved on this device."), "\(push)")
        #expect(elapsed >= 9.5 && elapsed < 30, "\(elapsed) s")
        #expect(try net.lib("status", "--porcelain").stdout.contains("pending 1\n"))
    }
}

/// A machine in its own network namespace whose only way to the server is a
/// route that the test adds and removes: lib-server runs in a peer namespace
/// on 203.0.113.1 (a documentation address on the peer's `lo`), behind a
/// veth pair 198.51.100.2 ↔ 198.51.100.1. Without the route, connect()
/// fails with ENETUNREACH: offline, for real.
final class OfflineMachine: @unchecked Sendable {
    let namespace: NetworkNamespace
    /// This side's end of the veth pair to the server's namespace.
    let interface: String
    let peer: String
    let server: Process
    let serverDirectory: TemporaryDirectory
    let home: TemporaryDirectory
    static let serverAddress = "203.0.113.1"
    static let port = 8080

    init() throws {
        namespace = try NetworkNamespace()
        interface = try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        peer = namespace.name + "-p1"
        try Self.ip(["-n", peer, "addr", "add", Self.serverAddress + "/32", "dev", "lo"])
        serverDirectory = try TemporaryDirectory("lib-e2e-server")
        home = try TemporaryDirectory("lib-e2e")
        server = Process()
        server.executableURL = URL(fileURLWithPath: NetworkNamespace.ip)
        server.arguments = ["netns", "exec", peer, BuiltProducts.path("lib-server"), "--db", serverDirectory.file("server.sqlite"),
                            "--listen", "\(Self.serverAddress):\(Self.port)", "--demo"]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        _ = output.fileHandleForReading.availableData
        try addRoute()
        let login = try lib(["login", "http://\(Self.serverAddress):\(Self.port)", "--user", "alice", "--password-stdin"], stdin: "alice-demo\n")
        guard login.status == 0 else { throw NetworkNamespace.NamespaceError.command(login.description) }
    }

    deinit {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    func addRoute() throws { try namespace.ip(["route", "add", "203.0.113.0/24", "via", "198.51.100.1"]) }
    func removeRoute() throws { try namespace.ip(["route", "del", "203.0.113.0/24"]) }

    func lib(_ arguments: String...) throws -> CommandResult { try lib(arguments, stdin: nil) }

    /// Runs lib inside the namespace, with the session's keyring (its bus
    /// is a unix:path socket, reachable from any network namespace).
    func lib(_ arguments: [String], stdin: String?) throws -> CommandResult {
        let env = ProcessInfo.processInfo.environment
        var pass = ["LIB_HOME": home.path, "LANG": "C.UTF-8"]
        for key in ["DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_RUNTIME_DIR"] { pass[key] = env[key] }
        if let stdin {
            let script = "printf '%s\\n' \"$LIB_STDIN\" | \"$@\""
            pass["LIB_STDIN"] = stdin.trimmingCharacters(in: .newlines)
            return try namespace.run("/bin/sh", ["-c", script, "sh", BuiltProducts.path("lib")] + arguments, environment: pass)
        }
        return try namespace.run(BuiltProducts.path("lib"), arguments, environment: pass)
    }

    /// How many versions the server has of a book.
    func history(_ book: String) throws -> Int {
        let result = try CommandRunner.run("/usr/bin/sqlite3", [serverDirectory.file("server.sqlite"),
            "SELECT count(*) FROM history WHERE book_id = '\(book)'"])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    private static func ip(_ arguments: [String]) throws {
        let result = try CommandRunner.run(NetworkNamespace.ip, arguments, environment: ["PATH": "/usr/sbin:/usr/bin"])
        guard result.status == 0 else { throw NetworkNamespace.NamespaceError.command(result.description) }
    }
}
