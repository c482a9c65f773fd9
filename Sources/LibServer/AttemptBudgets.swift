import Foundation
import Synchronization

/// Budgets of attempts, for each peer address and for the whole server,
/// each refilling at a steady rate (a token bucket). While either is spent
/// every attempt is refused (429 with Retry-After) before it is looked at,
/// so a refused guess learns nothing, right or wrong.
///
/// Device sign-in's user codes (`userCodes`): the global budget bounds
/// guessing from any number of addresses: at 100 wrong codes a minute, a
/// code's 15 minutes allow at most 1,600 guesses of the 20^8 codes, a chance
/// below 10^-7 per waiting code. New code pairs (`codeRequests`): a peer
/// cannot fill the table. Kept per process, as `LoginThrottle`.
final class AttemptBudgets: Sendable {
    struct Budget: Sendable {
        /// Attempts allowed at once, from a full budget.
        var burst: Double
        /// Attempts the budget regains each minute.
        var perMinute: Double
    }

    /// Wrong user codes.
    static func userCodes(now: @escaping @Sendable () -> TimeInterval) -> AttemptBudgets {
        AttemptBudgets(perPeer: Budget(burst: 10, perMinute: 10), global: Budget(burst: 100, perMinute: 100), now: now)
    }

    /// New code pairs (`POST /v1/device/code`).
    static func codeRequests(now: @escaping @Sendable () -> TimeInterval) -> AttemptBudgets {
        AttemptBudgets(perPeer: Budget(burst: 20, perMinute: 20), global: Budget(burst: 1_000, perMinute: 1_000), now: now)
    }

    let perPeer: Budget
    let global: Budget

    private struct Bucket {
        var left: Double
        var at: TimeInterval
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> TimeInterval

    init(perPeer: Budget, global: Budget, now: @escaping @Sendable () -> TimeInterval) {
        self.perPeer = perPeer
        self.global = global
        self.now = now
    }

    /// Whether an attempt from `peer` may be looked at now: nil when it may,
    /// else the seconds to wait. An admitted attempt is charged at once,
    /// under the lock (attempts arriving together cannot all pass before
    /// any is counted); `refund` gives it back when it was right.
    func admit(peer: String) -> Int? {
        let t = now()
        return buckets.withLock { buckets in
            let peerKey = Self.peerKey(peer)
            let mine = Self.refilled(buckets[peerKey], perPeer, at: t)
            let all = Self.refilled(buckets[Self.globalKey], global, at: t)
            let wait = max(Self.wait(mine, perPeer), Self.wait(all, global))
            if wait > 0 { return max(1, Int(wait.rounded(.up))) }
            // A full bucket is the default: forget the rest now and then, so
            // that the table holds only peers that guessed wrong lately.
            if buckets.count > 100_000 { buckets = buckets.filter { t - $0.value.at < 3600 } }
            buckets[peerKey] = Bucket(left: mine.left - 1, at: t)
            buckets[Self.globalKey] = Bucket(left: all.left - 1, at: t)
            return nil
        }
    }

    /// Seconds until the bucket holds one attempt; 0 when it does.
    private static func wait(_ bucket: Bucket, _ budget: Budget) -> Double {
        bucket.left >= 1 ? 0 : (1 - bucket.left) * 60 / budget.perMinute
    }

    /// The attempt was right (a code that exists): it is not charged.
    func refund(peer: String) {
        let t = now()
        buckets.withLock { buckets in
            for (key, budget) in [(Self.peerKey(peer), perPeer), (Self.globalKey, global)] {
                var bucket = Self.refilled(buckets[key], budget, at: t)
                bucket.left = min(budget.burst, bucket.left + 1)
                buckets[key] = bucket
            }
        }
    }

    private static func refilled(_ bucket: Bucket?, _ budget: Budget, at t: TimeInterval) -> Bucket {
        guard let bucket else { return Bucket(left: budget.burst, at: t) }
        return Bucket(left: min(budget.burst, bucket.left + max(0, t - bucket.at) * budget.perMinute / 60), at: t)
    }

    private static let globalKey = "all"
    private static func peerKey(_ peer: String) -> String { "peer " + peer }
}
