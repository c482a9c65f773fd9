import LibBase
import CCurl
import Glibc

/// Waits for a network path to a server, woken by the kernel's routing
/// events rather than by polling: subscribe to rtnetlink's link, address
/// and route groups first, then probe, then sleep in poll() until an event
/// or the deadline, probing again after each event. Subscribing before the
/// first probe means a change between the two cannot be missed.
///
/// This is what `push --wait` uses when offline. It waits on the calling
/// thread.
public struct PathWatcher: Sendable {
    /// How a wait ended, and after how long.
    public enum Outcome: Sendable, Equatable {
        case available(after: Duration)
        case gaveUp(after: Duration)
    }

    /// The host whose path is watched (an IP literal or a name; see
    /// `PathProbe.status(for:port:)`).
    public let host: String
    public let port: UInt16
    /// Used only when netlink cannot be opened (e.g. a seccomp filter):
    /// then the path is probed at this interval instead.
    public let fallbackInterval: Duration

    public init(host: String, port: UInt16 = 443, fallbackInterval: Duration = .seconds(1)) {
        self.host = host
        self.port = port
        self.fallbackInterval = fallbackInterval
    }

    /// Returns as soon as the path is available, or once `timeout` has passed.
    public func waitForPath(for timeout: Duration) -> Outcome {
        let start = Self.monotonicNow()
        let deadline = start + timeout
        let fd = cnetlink_open_route_events()
        defer { if fd >= 0 { close(fd) } }

        while true {
            if PathProbe.status(for: host, port: port) == .available {
                return .available(after: Self.monotonicNow() - start)
            }
            let remaining = deadline - Self.monotonicNow()
            if remaining <= .zero { return .gaveUp(after: Self.monotonicNow() - start) }
            let wait = fd >= 0 ? remaining : min(remaining, fallbackInterval)
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // poll() with fd -1 just sleeps; it ignores negative descriptors.
            let ready = poll(&descriptor, 1, Self.milliseconds(rounding: wait))
            if ready > 0 && fd >= 0 {
                _ = cnetlink_drain(fd)
            }
        }
    }

    /// The monotonic clock as a Duration (see `MonotonicClock`).
    private static func monotonicNow() -> Duration {
        .nanoseconds(Int64(MonotonicClock.now() * 1e9))
    }

    /// A duration in whole milliseconds, rounded up so that a wait never
    /// ends just short of the deadline, capped to poll()'s Int32.
    public static func milliseconds(rounding duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, millis))
    }
}

/// The kernel's routing events (rtnetlink link, address and route groups)
/// as a descriptor for a caller's own poll() set: `push --watch` waits on
/// it together with its other events, and probes the path after each.
public final class RouteEvents {
    /// Readable when a link, address or route changed.
    public let descriptor: Int32

    /// nil when netlink cannot be opened (e.g. a seccomp filter).
    public init?() {
        let fd = cnetlink_open_route_events()
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Reads every queued event; the caller then probes the path.
    public func drain() { _ = cnetlink_drain(descriptor) }
}
