import Foundation
import Synchronization

/// The time lib-server reads, in seconds since 1970: the wall clock in
/// service, a clock a test moves on (`LibraryService(clock:)`). Sessions,
/// the idempotency ledger, the change feed and the history all date what
/// they write with it; nothing else in LibServer reads the time of day.
public struct ServerClock: Sendable {
    public let now: @Sendable () -> Double
    /// Moves the clock on by some seconds; nil for a clock that cannot be moved.
    let advance: (@Sendable (Double) -> Void)?

    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
        advance = nil
    }

    public static let system = ServerClock { Date().timeIntervalSince1970 }

    /// The wall clock plus an offset that `PUT /_test/clock` moves on
    /// (`--fault-control` only): end-to-end tests let a session expire or
    /// a deletion pass its retention without waiting for it.
    static func movable() -> ServerClock {
        let offset = Mutex(0.0)
        return ServerClock(now: { system.now() + offset.withLock { $0 } }, advance: { seconds in offset.withLock { $0 += seconds } })
    }

    private init(now: @escaping @Sendable () -> Double, advance: @escaping @Sendable (Double) -> Void) {
        self.now = now
        self.advance = advance
    }
}
