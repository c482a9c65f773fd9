import Foundation
import Synchronization

/// Slows password guessing: after a few failed logins for one user name,
/// or more from one peer address, further attempts are refused (429 with
/// Retry-After) for a delay that doubles with each failure, capped at a
/// minute. Attempts while refused are not checked and do not count, so an
/// attacker cannot push a user's lock out further than the cap, and the
/// right password works again as soon as the delay has passed. Kept per
/// process (several servers each slow an attacker down on their own).
final class LoginThrottle: Sendable {
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

    private let records = Mutex<[String: Record]>([:])
    private let now: @Sendable () -> TimeInterval

    init(now: @escaping @Sendable () -> TimeInterval) {
        self.now = now
    }

    /// Whether `username` may have a password checked now from `peer`: nil
    /// when it may, else the seconds to wait. An admitted attempt is counted
    /// as a failure at once, under the same lock as the check, so that
    /// attempts arriving together cannot all pass before any is counted
    /// (200 parallel guesses got 200 password checks when the count came
    /// after the check, issue 23); `recordSuccess` takes the count back.
    func admit(username: String, peer: String) -> Int? {
        let t = now()
        return records.withLock { records in
            let keys = [(Self.userKey(username), Self.perUser), (Self.peerKey(peer), Self.perPeer)]
            let waits = keys.compactMap { key, _ -> TimeInterval? in
                guard let record = records[key], record.blockedUntil > t else { return nil }
                return record.blockedUntil - t
            }
            if let wait = waits.max() { return Int(wait.rounded(.up)) }
            if records.count > 100_000 { records = records.filter { t - $0.value.lastFailure < Self.perUser.memory } }
            for (key, policy) in keys { Self.note(key, policy, at: t, in: &records) }
            return nil
        }
    }

    /// The right password clears the user's record (not the peer's: one
    /// good account must not reset guessing at the others), and takes back
    /// the failure `admit` counted for the peer.
    func recordSuccess(username: String, peer: String) {
        records.withLock { records in
            records[Self.userKey(username)] = nil
            if var record = records[Self.peerKey(peer)], record.failures > 0 {
                record.failures -= 1
                records[Self.peerKey(peer)] = record
            }
        }
    }

    private static func note(_ key: String, _ policy: Policy, at t: TimeInterval, in records: inout [String: Record]) {
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
