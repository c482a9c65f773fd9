import Foundation

/// What a running process is doing, read from /proc: for tests that wait
/// for a process to reach a state (watching a directory, asleep with no
/// timeout) instead of sleeping and hoping it has.
public enum ProcessState {
    /// How many inotify watches the process holds (the `inotify wd:` lines
    /// of /proc/PID/fdinfo), across all its descriptors.
    public static func inotifyWatchCount(_ pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fdinfo"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.reduce(0) { count, descriptor in
            let info = (try? String(contentsOfFile: "\(directory)/\(descriptor)", encoding: .utf8)) ?? ""
            return count + info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
    }

    /// The timeout, in milliseconds (-1: none), of the poll(2) the process's
    /// main thread is blocked in; nil when it is not in poll (running, or in
    /// another call). x86_64 numbering: poll is system call 7, its third
    /// argument the timeout.
    public static func mainThreadPollTimeout(_ pid: Int32) -> Int32? {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return nil }
        let fields = line.split(separator: " ")
        guard fields.count > 3, fields[0] == "7", let timeout = UInt64(fields[3].dropFirst(2), radix: 16) else { return nil }
        return Int32(truncatingIfNeeded: timeout)
    }

    /// How many times the process's main thread has blocked of its own
    /// accord (voluntary_ctxt_switches): each timed wake-up adds one, and
    /// a busy machine adds none.
    public static func voluntaryContextSwitches(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
    }

    /// Polls `condition` every 20 ms until it holds; false when `timeout`
    /// seconds pass first (a bound for a state never reached, not an
    /// expected time).
    public static func waitUntil(timeout: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try condition() { return true }
            usleep(20_000)
        } while Date() < deadline
        return try condition()
    }
}
