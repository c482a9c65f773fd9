import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a child process to end, woken by its exit rather than by
/// looking at it every few milliseconds.
public enum ChildProcessExit {
    /// Blocks until `process` has exited, or `timeout` seconds have passed
    /// (a generous bound: past it the caller treats the process as hung).
    /// Returns whether it exited; if so, Foundation has seen the exit too
    /// (terminationStatus may be read). waitid's WNOWAIT leaves reaping,
    /// and the exit status, to Foundation.
    public static func wait(for process: Process, timeout: Double) -> Bool {
        guard process.isRunning else { return true }
        let pid = process.processIdentifier
        let exited = DispatchSemaphore(value: 0)
        let waiter = Thread {
            var info = siginfo_t()
            // EINTR: a signal for this thread; ECHILD: Foundation reaped it first.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            exited.signal()
        }
        waiter.start()
        guard exited.wait(timeout: .now() + timeout) == .success || !process.isRunning else { return false }
        process.waitUntilExit()
        return true
    }
}
