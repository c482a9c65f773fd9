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
/// How many wait at once is capped per user, per peer and in all
/// (`WaiterCaps`): a new waiter over a cap displaces the longest-waiting
/// one under it, which is answered at once with an empty page. A waiter
/// whose client has gone lets go of its place at once.
///
/// On SQLite another process may commit to the same file without telling:
/// while requests wait, the newest position is read every `pollSeconds`
/// (one indexed query; nothing at all while no one waits).
final class ChangeWaiters: Sendable {
    /// The longest wait a request may ask for (GET /v2/capabilities says so).
    static let maxWaitSeconds = 60
    static let pollSeconds = 0.25

    struct Waiter: Sendable {
        let pending: PendingReply
        /// The feed position the request's page ended at.
        let since: Int64
        /// When the wait ends (seconds on `MonotonicClock`).
        let deadline: Double
        /// Whose request it is, and from which peer address: what the caps count.
        let user: String
        let peer: String
        /// The request answered as if it had not asked to wait.
        let answer: @Sendable () -> HTTPReply
    }

    /// What the waiters have come to, since the server started.
    struct Counts: Sendable, Equatable {
        /// Waiting now.
        var waiting = 0
        /// Answered early (an empty page) to make room for a newer waiter.
        var answeredEarly = 0
        /// Let go because their client closed its connection.
        var clientsGone = 0
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var caps: WaiterCaps
        var lastID: UInt64 = 0
        var counts = Counts()
    }

    private let state: Mutex<State>
    private let notices: ChangeNotices
    private let pollsForOtherWriters: Bool
    private let newest: @Sendable () throws -> Int64
    private let watcherStarted = Atomic<Bool>(false)

    init(notices: ChangeNotices, caps: WaiterCaps.Limits, pollsForOtherWriters: Bool, newest: @escaping @Sendable () throws -> Int64) {
        state = Mutex(State(caps: WaiterCaps(limits: caps)))
        self.notices = notices
        self.pollsForOtherWriters = pollsForOtherWriters
        self.newest = newest
    }

    var counts: Counts {
        state.withLock { state in
            var counts = state.counts
            counts.waiting = state.waiters.count
            return counts
        }
    }

    /// Holds the waiter, answering early those it displaces.
    func add(_ waiter: Waiter) {
        let (id, displaced): (UInt64, [Waiter]) = state.withLock { state in
            state.lastID += 1
            let id = state.lastID
            let displaced = state.caps.admit(id, user: waiter.user, peer: waiter.peer).compactMap { state.waiters.removeValue(forKey: $0) }
            state.counts.answeredEarly += displaced.count
            state.waiters[id] = waiter
            return (id, displaced)
        }
        for early in displaced { early.pending.complete(.respond(early.pending.answerAtStop)) }
        waiter.pending.whenClientLeaves { [weak self] in self?.clientLeft(id) }
        notices.watched.store(true, ordering: .relaxed)
        if !watcherStarted.exchange(true, ordering: .acquiringAndReleasing) {
            Thread.detachNewThread { [self] in watch() }
        }
        // The watcher checks it against the newest position at once: a
        // commit between the request's read and now is not missed.
        notices.post()
    }

    private func clientLeft(_ id: UInt64) {
        state.withLock { state in
            guard state.waiters.removeValue(forKey: id) != nil else { return }
            state.caps.remove(id)
            state.counts.clientsGone += 1
        }
    }

    private func watch() {
        while true {
            let ticket = notices.ticket()
            if state.withLock({ $0.waiters.isEmpty }) {
                notices.watched.store(false, ordering: .relaxed)
                // A waiter added since posts after `ticket`: the wait returns at once.
                notices.wait(after: ticket, until: nil)
                continue
            }
            let now = MonotonicClock.now()
            let position = try? newest()
            let due: [Waiter] = state.withLock { state in
                let ids = state.waiters.compactMap { id, waiter in
                    let moved = position.map { $0 > waiter.since } ?? false
                    return moved || waiter.deadline <= now ? id : nil
                }
                return ids.compactMap { id in
                    state.caps.remove(id)
                    return state.waiters.removeValue(forKey: id)
                }
            }
            for waiter in due { waiter.pending.complete(waiter.answer()) }
            guard let soonest = state.withLock({ $0.waiters.values.map(\.deadline).min() }) else { continue }
            var until = soonest
            // The database unreachable: try again soon rather than at the end of the wait.
            if pollsForOtherWriters || position == nil { until = min(until, now + Self.pollSeconds) }
            notices.wait(after: ticket, until: until)
        }
    }
}
