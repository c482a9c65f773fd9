#if canImport(Glibc)
import Glibc
#endif

// The two clocks lib reads, in one place. The client keeps to the standard
// library so that start-up does not load Foundation (measured:
// FoundationEssentials alone adds about 1.5 ms to each run of `lib status`).

/// Seconds since 1970, UTC: how the stores keep time.
public typealias UnixSeconds = Double

/// The wall clock (CLOCK_REALTIME): when things happened, as stores keep it.
public enum UnixClock {
    public static func now() -> UnixSeconds {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Seconds on CLOCK_MONOTONIC: for deadlines and waits, which a change of
/// the wall clock must not stretch or cut. (ContinuousClock would link
/// Swift's concurrency runtime into the static `lib`.)
public enum MonotonicClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A point in wall-clock time: seconds since 1970-01-01 UTC, what the store
/// saves and what `Date(timeIntervalSince1970:)` takes.
public struct UnixTime: Sendable, Hashable, Comparable {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    /// The system's current time (CLOCK_REALTIME).
    public static func now() -> UnixTime { UnixTime(secondsSince1970: UnixClock.now()) }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }
}
