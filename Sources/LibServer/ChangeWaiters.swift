import Foundation
import LibBase
import LibHTTPServer
import Synchronization

/// Change-feed requests waiting for a change (`GET /v1/changes?wait=S`):
/// each is a pending reply, holding no thread and no database connection.
/// One watcher thread answers them: woken by a commit on this instance, a
/// PostgreSQL notification of another instance's commit, a new waiter, or
/// the soonest end of a wait, it reads the feed's newest position once and
/// answers every waiter the feed has moved past (and those whose wait ended,
/// with what is there: an empty page and the same cursor). With no waiters
/// it sleeps with no timeout.
///
/// On SQLite another process may commit to the same file without telling:
/// while requests wait, the newest position is read every `pollSeconds`
/// (one indexed query; nothing at all while no one waits).
final class ChangeWaiters: Sendable {
    /// The longest wait a request may ask for (GET /v2/capabilities says so).
    static let maxWaitSeconds = 60
    /// Requests waiting at once; more are answered at once (an empty page).
    static let maxWaiters = 10_000
    static let pollSeconds = 0.25

    struct Waiter: Sendable {
        let pending: PendingReply
        /// The feed position the request's page ended at.
        let since: Int64
        /// When the wait ends (seconds on `MonotonicClock`).
        let deadline: Double
        /// The request answered as if it had not asked to wait.
        let answer: @Sendable () -> HTTPReply
    }

    private let waiters = Mutex<[Waiter]>([])
    private let notices: ChangeNotices
    private let pollsForOtherWriters: Bool
    private let newest: @Sendable () throws -> Int64
    private let watcherStarted = Atomic<Bool>(false)

    init(notices: ChangeNotices, pollsForOtherWriters: Bool, newest: @escaping @Sendable () throws -> Int64) {
        self.notices = notices
        self.pollsForOtherWriters = pollsForOtherWriters
        self.newest = newest
    }

    /// Holds the waiter; false when too many wait already.
    func add(_ waiter: Waiter) -> Bool {
        let added = waiters.withLock { list in
            guard list.count < Self.maxWaiters else { return false }
            list.append(waiter)
            return true
        }
        guard added else { return false }
        notices.watched.store(true, ordering: .relaxed)
        if !watcherStarted.exchange(true, ordering: .acquiringAndReleasing) {
            Thread.detachNewThread { [self] in watch() }
        }
        // The watcher checks it against the newest position at once: a
        // commit between the request's read and now is not missed.
        notices.post()
        return true
    }

    private func watch() {
        while true {
            let ticket = notices.ticket()
            if waiters.withLock({ $0.isEmpty }) {
                notices.watched.store(false, ordering: .relaxed)
                // A waiter added since posts after `ticket`: the wait returns at once.
                notices.wait(after: ticket, until: nil)
                continue
            }
            let now = MonotonicClock.now()
            let position = try? newest()
            let due: [(Waiter, Bool)] = waiters.withLock { list in
                var due: [(Waiter, Bool)] = []
                list.removeAll { waiter in
                    let moved = position.map { $0 > waiter.since } ?? false
                    guard moved || waiter.deadline <= now else { return false }
                    due.append((waiter, moved))
                    return true
                }
                return due
            }
            for (waiter, _) in due { waiter.pending.complete(waiter.answer()) }
            guard let soonest = waiters.withLock({ $0.map(\.deadline).min() }) else { continue }
            var until = soonest
            // The database unreachable: try again soon rather than at the end of the wait.
            if pollsForOtherWriters || position == nil { until = min(until, now + Self.pollSeconds) }
            notices.wait(after: ticket, until: until)
        }
    }
}
