#if canImport(Glibc)
import Glibc
#endif
import LibBase
import Synchronization

/// "Something may have changed in the change feed": posted after a write
/// commits on this instance, by the PostgreSQL listener when another
/// instance's commit is announced, and when a feed request starts to wait.
/// An event count, so that no notice slips between a check and the sleep.
/// A write posts only while a feed request waits (`watched`): otherwise it
/// costs one atomic load.
final class ChangeNotices: @unchecked Sendable {
    // @unchecked: `count` is only touched under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var count: UInt64 = 0
    /// Whether anyone waits for notices (feed requests are held).
    let watched = Atomic<Bool>(false)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// After a commit on this instance: skipped when no feed request waits.
    func postIfWatched() {
        if watched.load(ordering: .relaxed) { post() }
    }

    func post() {
        pthread_mutex_lock(mutex)
        count &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    func ticket() -> UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count
    }

    /// Sleeps until a notice after `ticket`, or until `deadline` (seconds on
    /// `MonotonicClock`; nil: none).
    func wait(after ticket: UInt64, until deadline: Double?) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == ticket {
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var time = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
            if pthread_cond_timedwait(condition, mutex, &time) == ETIMEDOUT { return }
        }
    }
}
