#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibNet
import LibBase

/// `push --wait` waiting on NetworkManager rather than retrying into a
/// network that cannot carry the request: while it reports a captive
/// portal, limited connectivity or a connection still being made (after a
/// failure), or while the connection is metered and LIB_METERED=defer asks
/// background pushes to hold. Woken by NetworkManager's change signals, not
/// by polling; NetworkManager absent or gone means nothing holds.
struct NetworkManagerWait {
    let progress: WaitProgress

    enum Outcome {
        /// NetworkManager does not hold the push (any more, or never did).
        case released
        /// It still held it when the time ran out.
        case deadline
    }

    /// Waits while `holds` is true of NetworkManager's status, until `deadline`.
    func wait(while holds: (NetworkManagerStatus) -> Bool, until deadline: Double, saying text: String) -> Outcome {
        let monitor = NetworkManagerMonitor()
        while let status = monitor.status, holds(status) {
            let remaining = deadline - MonotonicClock.now()
            if remaining <= 0 {
                progress.clear()
                return .deadline
            }
            progress.show(text, secondsLeft: remaining)
            // Slices of a second only to refresh the time left on a terminal.
            let slice = progress.isEnabled ? min(remaining, 1) : remaining
            var descriptor = pollfd(fd: monitor.descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = PathWatcher.milliseconds(rounding: .milliseconds(Int64(slice * 1000)))
            if poll(&descriptor, 1, milliseconds) > 0 { monitor.refresh() }
        }
        progress.clear()
        return .released
    }

    /// Whether this push is one LIB_METERED=defer holds on a metered
    /// connection: a background one (`--wait` off a terminal; `--watch`
    /// decides for itself). A person at a terminal is never held back.
    static func defersWhenMetered(_ context: CommandContext) -> Bool {
        context.environment["LIB_METERED"] == "defer"
            && !context.standardError.isTerminal && !context.standardOutput.isTerminal
    }
}
