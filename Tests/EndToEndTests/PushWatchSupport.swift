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
        for _ in 0..<3000 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// User plus system CPU time so far, in seconds (/proc/PID/stat fields 14 and 15).
    func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits until standard error has a line containing `text`.
    func waitForLine(containing text: String, timeout: Double = 20) -> Bool {
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
