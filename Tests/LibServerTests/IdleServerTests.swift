import Foundation
import Testing
import TestSupport

/// An idle lib-server sleeps: for 3 s under strace, no thread wakes up on a
/// timer (no poll or futex that times out, no sleep). Accept and stop are
/// driven by events: a client, or the listening socket shut down.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") && getuid() == 0,
                "needs strace and root to trace the server"),
        .enabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil,
                 "a server under ThreadSanitizer (make sanitize) has the sanitizer's own thread, which wakes every 100 ms"))
struct IdleServerTests {
    @Test func anIdleServerMakesNoTimedWakeUp() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerProcess(database: try TestDatabase.fresh(in: dir))
        // Let its start-up (and the first request's threads) settle.
        #expect(try HTTPTestClient(port: server.port).request("GET", "/v1/me").status == 401)
        usleep(500_000)
        let trace = dir.file("idle.trace")
        // strace stops on SIGINT from timeout; Foundation's Process leaves
        // signals blocked in its children, so they are unblocked first.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, range(1, signal.NSIG)); "
            + "os.execv(sys.argv[1], sys.argv[1:])"
        _ = try CommandRunner.run("/usr/bin/python3", ["-c", unblocked, "/usr/bin/timeout", "-s", "INT", "-k", "5", "3",
                                                       "/usr/bin/strace", "-f", "-qq", "-o", trace,
                                                       "-p", String(server.process.processIdentifier)], timeout: 30)
        let lines = (try String(contentsOfFile: trace, encoding: .utf8)).split(separator: "\n")
        let timed = lines.filter { $0.contains("(Timeout)") || $0.contains("nanosleep(") || $0.contains("ETIMEDOUT") }
        #expect(timed.isEmpty, "timed wake-ups of an idle server:\n\(timed.joined(separator: "\n"))")
        #expect(server.stop() == 0, "and SIGTERM still stops it")
    }
}
