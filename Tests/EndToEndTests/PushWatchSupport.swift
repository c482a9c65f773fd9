import Foundation
import Testing
import TestSupport

/// A running `lib push --watch`, its standard error in a file (what a
/// journal would keep).
final class RunningWatcher: @unchecked Sendable {
    let process: Process
    let stderrPath: String

    /// Starts `lib ARGS...` (by default `push --watch`) for `harness`, or
    /// inside a namespace with `launcher` (e.g. `ip netns exec NAME`).
    init(_ harness: LibHarness, arguments: [String] = ["push", "--watch"], environment extra: [String: String] = [:],
         launcher: [String] = [], name: String = "watch") throws {
        stderrPath = harness.home.file("\(name).stderr")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        if launcher.isEmpty {
            process.executableURL = URL(fileURLWithPath: BuiltProducts.path("lib"))
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: launcher[0])
            process.arguments = Array(launcher.dropFirst()) + [BuiltProducts.path("lib")] + arguments
        }
        process.environment = harness.environment.merging(extra) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits (at most 30 s) for the exit status.
    func terminate(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        if !ChildProcessExit.wait(for: process, timeout: 30) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits until the watcher watches the configuration directory and
    /// `accounts` account directories (its inotify watches), that is until
    /// it has read the account list: what it sees from then on, it acts on.
    func waitUntilWatching(accounts: Int = 1) -> Bool {
        ProcessState.waitUntil { ProcessState.inotifyWatchCount(process.processIdentifier) >= 1 + accounts }
    }

    /// Waits until the watcher sleeps in poll with no timeout, or with only
    /// the idle pull's (LIB_WATCH_PULL_INTERVAL, 15 minutes by default):
    /// nothing else is due, and only an event (a write, a route, a signal)
    /// can wake it sooner.
    func waitUntilAsleepWithoutTimeout() -> Bool {
        ProcessState.waitUntil { Self.isAsleep(ProcessState.mainThreadPollTimeout(process.processIdentifier)) }
    }

    /// A poll timeout (ms) of an idle watcher: none, or the idle pull's (at least 10 minutes away).
    static func isAsleep(_ timeout: Int32?) -> Bool {
        guard let timeout else { return false }
        return timeout == -1 || timeout >= 600_000
    }

    /// Waits until standard error has a line containing `text`.
    func waitForLine(containing text: String, timeout: Double = 30) -> Bool {
        waitUntil(timeout: timeout) { self.stderr.contains(text) } != nil
    }
}

/// Polls `condition` every 20 ms; returns the seconds it took to hold, or
/// nil when it did not within `timeout`.
func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Double? {
    let start = monotonicNow()
    while monotonicNow() - start < timeout {
        if try condition() { return monotonicNow() - start }
        usleep(20_000)
    }
    return nil
}

/// How many versions the server has of a book.
func serverVersions(_ server: ServerProcess, _ book: String) throws -> Int {
    let result = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath,
        "SELECT count(*) FROM history WHERE book_id = '\(book)'"])
    return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}
