import Foundation

/// The time lib-server reads, in seconds since 1970: the wall clock in
/// service, a clock a test moves on (`LibraryService(clock:)`). Sessions,
/// the idempotency ledger, the change feed and the history all date what
/// they write with it; nothing else in LibServer reads the time of day.
public struct ServerClock: Sendable {
    public let now: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    public static let system = ServerClock { Date().timeIntervalSince1970 }
}
