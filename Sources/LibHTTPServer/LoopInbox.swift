#if canImport(Glibc)
import Glibc
#endif
import CEventLoop

/// What other threads hand one event loop: handlers' replies, and a nudge
/// when the server stops. Posting wakes the loop through an eventfd, at most
/// once until the loop has looked (so a burst of replies costs one wake-up).
final class LoopInbox: @unchecked Sendable {
    // @unchecked: `replies` and `notified` are only touched under `mutex`.
    struct Reply {
        let connection: UInt64
        let reply: HTTPReply
    }

    let eventFD: Int32
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var replies: [Reply] = []
    private var notified = false

    init?() {
        let fd = ceventloop_eventfd()
        guard fd >= 0 else { return nil }
        eventFD = fd
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        Glibc.close(eventFD)
    }

    func post(_ reply: Reply) {
        pthread_mutex_lock(mutex)
        replies.append(reply)
        let wake = !notified
        notified = true
        pthread_mutex_unlock(mutex)
        if wake { ceventloop_eventfd_signal(eventFD) }
    }

    /// Wakes the loop with nothing posted (it then looks at the server's state).
    func nudge() {
        ceventloop_eventfd_signal(eventFD)
    }

    /// Everything posted so far. The eventfd is reset first, so that a post
    /// racing with this wakes the loop again rather than being missed.
    func take() -> [Reply] {
        ceventloop_eventfd_drain(eventFD)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        notified = false
        guard !replies.isEmpty else { return [] }
        let taken = replies
        replies.removeAll(keepingCapacity: true)
        return taken
    }
}
