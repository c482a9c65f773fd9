#if canImport(Glibc)
import Glibc
#endif

/// A point in wall-clock time: seconds since 1970-01-01 UTC, what the store
/// saves and what `Date(timeIntervalSince1970:)` takes. LibCLI keeps to the
/// standard library so that start-up does not load Foundation (measured:
/// FoundationEssentials alone adds about 1.5 ms to each run of `lib status`).
public struct UnixTime: Sendable, Hashable, Comparable {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) {
        self.secondsSince1970 = secondsSince1970
    }

    /// The system's current time (CLOCK_REALTIME).
    public static func now() -> UnixTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UnixTime(secondsSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000)
    }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }
}
