import Foundation
import LibJSON
import Testing
import TestSupport

/// Every wait keeps its budget (DESIGN.md, "Writes: the outbox" and
/// "Reads"), on real paths made in network namespaces: a black hole (the
/// route is there, packets vanish) and a server that refuses.
@Suite(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
struct BudgetTests {
    /// `lib get` with a cached copy gives the network 2 s, then shows the
    /// copy with its label: the last known data at once, not after the
    /// 10 s connect timeout.
    @Test func aBlackHoleShowsTheCachedCopyWithinThreeSeconds() throws {
        let net = try OfflineMachine()
        #expect(try net.lib("get", "books/b-7").status == 0)
        try net.blackHole()
        let started = monotonicNow()
        let get = try net.lib("get", "books/b-7")
        let elapsed = monotonicNow() - started
        #expect(get.status == 0, "\(get)")
        #expect(try JSONParser.parse(get.stdout)["title"]?.stringValue == "Dune", "\(get)")
        #expect(get.stderr.hasPrefix("Showing the copy "), "\(get)")
        #expect(get.stderr.contains("Couldn't reach \(OfflineMachine.serverAddress):\(OfflineMachine.port): timed out after 2 s."), "\(get)")
        #expect(elapsed < 3, "\(elapsed) s")
        print("black hole, get with a cached copy: \(elapsed) s")

        // --timeout overrides the short budget; --fresh never falls back.
        let startedFresh = monotonicNow()
        let fresh = try net.lib("get", "books/b-7", "--fresh", "--timeout", "1")
        let elapsedFresh = monotonicNow() - startedFresh
        #expect(fresh.status == 75, "\(fresh)")
        #expect(fresh.stderr.contains("timed out after 1 s"), "\(fresh)")
        #expect(elapsedFresh < 2.5, "\(elapsedFresh) s")
    }

    /// The connect timeout is capped by what is left of --wait.
    @Test func pushWaitFiveOnABlackHoleEndsWithinSixSeconds() throws {
        let net = try OfflineMachine()
        #expect(try net.lib("edit", "books/h-1", "--create", "title=Black hole").status == 0)
        try net.blackHole()
        let started = monotonicNow()
        let push = try net.lib("push", "--wait", "5")
        let elapsed = monotonicNow() - started
        #expect(push.status == 75, "\(push)")
        #expect(push.stderr.contains("Couldn't reach \(OfflineMachine.serverAddress):\(OfflineMachine.port): timed out after"), "\(push)")
        #expect(push.stderr.hasSuffix("1 write is saved on this device.\n"), "\(push)")
        #expect(elapsed < 6, "\(elapsed) s")
        #expect(try net.lib("status", "--porcelain").stdout.contains("pending 1\n"))
        print("black hole, push --wait 5: \(elapsed) s")
    }

    /// A refusing server: retries with backoff, and one last attempt at the
    /// deadline, so the whole budget is used (9–11 s for --wait 10).
    @Test func pushWaitTenOnARefusingServerUsesItsBudget() throws {
        let net = try OfflineMachine()
        #expect(try net.lib("edit", "books/h-2", "--create", "title=Refused").status == 0)
        net.stopServer()
        let started = monotonicNow()
        let push = try net.lib("push", "--wait", "10")
        let elapsed = monotonicNow() - started
        #expect(push.status == 75, "\(push)")
        #expect(push.stderr == "lib: Couldn't reach \(OfflineMachine.serverAddress):\(OfflineMachine.port): connection refused — the server may be down. 1 write is saved on this device.\n", "\(push)")
        #expect(elapsed >= 9 && elapsed <= 11, "\(elapsed) s")
        print("refusing server, push --wait 10: \(elapsed) s")
    }
}

extension OfflineMachine {
    /// Keeps the route but points its gateway at a made-up MAC: every packet
    /// leaves and nothing ever answers.
    func blackHole() throws {
        try namespace.ip(["neigh", "replace", "198.51.100.1", "lladdr", "02:00:00:00:00:99", "dev", interface, "nud", "permanent"])
    }

    /// Kills lib-server: its address stays, so connections are refused.
    func stopServer() {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }
}

/// A Retry-After beyond the budget is said as a wait people understand,
/// and `--wait` gives up at once instead of sleeping into it.
@Suite struct RetryAfterTests {
    @Test func aRetryAfterBeyondTheBudgetGivesUpAndSaysHowLong() throws {
        let server = try startDemoServer(arguments: ["--fault", "status=503,retry-after=999999,path=/v2/writes"])
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("edit", "books/r-1", "--create", "title=Later").status == 0)

        let once = try alice.lib("push")
        #expect(once.status == 75, "\(once)")
        #expect(once.stderr.contains("answered 503 Service Unavailable: try again in 11 days."), "\(once)")
        #expect(!once.stderr.contains("999999"), "\(once)")

        let started = monotonicNow()
        let waiting = try alice.lib("push", "--wait", "30")
        let elapsed = monotonicNow() - started
        #expect(waiting.status == 75, "\(waiting)")
        #expect(waiting.stderr == "lib: 127.0.0.1 answered 503 Service Unavailable: the server asks to wait 11 days; giving up. 1 write is saved on this device.\n", "\(waiting)")
        #expect(elapsed < 10, "gave up at once, not at the deadline: \(elapsed) s")
        #expect(try alice.pending() == 1)
    }
}
