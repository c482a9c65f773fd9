#if canImport(Glibc)
import Glibc
#endif
/// Wakes the threads that wait for something to change (lib-server's
/// state, its change feed), so that every wait is an event and an idle
/// process makes no timed wake-up. An event count: a waiter takes a ticket,
/// checks the state, and sleeps only if nothing changed since its ticket,
/// so that no change can slip between the check and the sleep.
public final class EventCount: @unchecked Sendable {
    // @unchecked: `count` is only touched under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var count: UInt64 = 0

    public init() {
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

    /// Taken before checking the state.
    public func ticket() -> UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count
    }

    /// Called after the state changed.
    public func notify() {
        pthread_mutex_lock(mutex)
        count &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until a change after `ticket`, or until `deadline` (seconds on
    /// `MonotonicClock`; nil: none). False when the deadline passed first.
    @discardableResult
    public func wait(after ticket: UInt64, until deadline: Double? = nil) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == ticket {
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var time = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
            if pthread_cond_timedwait(condition, mutex, &time) == ETIMEDOUT && count == ticket { return false }
        }
        return true
    }
}
