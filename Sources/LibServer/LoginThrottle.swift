import Foundation

/// Slows password guessing: after a few failed logins for one user name,
/// or more from one peer address, further attempts are refused (429 with
/// Retry-After) for a delay that doubles with each failure, capped at a
/// minute. Attempts while refused are not checked and do not count, so an
/// attacker cannot push a user's lock out further than the cap, and the
/// right password works again as soon as the delay has passed. Kept per
/// process (several servers each slow an attacker down on their own).
final class LoginThrottle: @unchecked Sendable {
    // @unchecked: `records` is only touched under `lock`.
    struct Policy {
        /// Failures allowed before the first delay.
        var freeFailures: Int
        /// Forget a record this long after its last failure.
        var memory: TimeInterval = 15 * 60
        var maxDelay: TimeInterval = 60
    }

    static let perUser = Policy(freeFailures: 5)
    static let perPeer = Policy(freeFailures: 20)

    private struct Record {
        var failures = 0
        var lastFailure: TimeInterval = 0
        var blockedUntil: TimeInterval = 0
    }

    private let lock = NSLock()
    private var records: [String: Record] = [:]
    private let now: @Sendable () -> TimeInterval

    init(now: @escaping @Sendable () -> TimeInterval = { Date().timeIntervalSince1970 }) {
        self.now = now
    }

    /// Seconds to wait before `username` may try again from `peer`, or nil
    /// when the attempt may be checked.
    func delay(username: String, peer: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        let t = now()
        let waits = [Self.userKey(username), Self.peerKey(peer)].compactMap { key -> TimeInterval? in
            guard let record = records[key], record.blockedUntil > t else { return nil }
            return record.blockedUntil - t
        }
        return waits.max().map { Int($0.rounded(.up)) }
    }

    func recordFailure(username: String, peer: String) {
        lock.lock()
        defer { lock.unlock() }
        let t = now()
        if records.count > 100_000 { records = records.filter { t - $0.value.lastFailure < Self.perUser.memory } }
        note(Self.userKey(username), Self.perUser, at: t)
        note(Self.peerKey(peer), Self.perPeer, at: t)
    }

    /// The right password clears the user's record (not the peer's: one
    /// good account must not reset guessing at the others).
    func recordSuccess(username: String) {
        lock.lock()
        records[Self.userKey(username)] = nil
        lock.unlock()
    }

    private func note(_ key: String, _ policy: Policy, at t: TimeInterval) {
        var record = records[key] ?? Record()
        if t - record.lastFailure > policy.memory { record = Record() }
        record.failures += 1
        record.lastFailure = t
        let over = record.failures - policy.freeFailures
        if over > 0 {
            record.blockedUntil = t + min(policy.maxDelay, pow(2, Double(min(over - 1, 16))))
        }
        records[key] = record
    }

    private static func userKey(_ username: String) -> String { "user " + username }
    private static func peerKey(_ peer: String) -> String { "peer " + peer }
}
