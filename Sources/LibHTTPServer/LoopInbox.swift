#if canImport(Glibc)
import Glibc
#endif
import CEventLoop
import Synchronization

/// What other threads hand one event loop: handlers' replies, connections
/// a full sibling loop accepted for this one to make room for, and a nudge
/// when the server stops. Posting wakes the loop through an eventfd, at most
/// once until the loop has looked (so a burst of replies costs one wake-up).
final class LoopInbox: Sendable {
    struct Reply: Sendable {
        let connection: UInt64
        let reply: HTTPReply
    }

    /// How a connection came to a loop: accepted from the listening socket,
    /// or, when the server is full, handed over by a loop whose longest
    /// wait (`longestThere`, `.max` for none) was shorter than this loop's,
    /// or handed back by a loop whose longest wait turned out shorter still.
    enum Arrival: Sendable {
        case accepted
        case handedOver(by: EventLoop, longestThere: UInt64)
        case handedBack(by: EventLoop)
    }

    struct HandedConnection: Sendable {
        let fd: Int32
        let remoteAddress: String
        let arrival: Arrival
    }

    struct Delivery: Sendable {
        var replies: [Reply] = []
        var connections: [HandedConnection] = []
    }

    let eventFD: Int32
    /// What is posted and not yet taken, and whether the loop has been woken for it.
    private let pending = Mutex((delivery: Delivery(), woken: false))

    init?() {
        let fd = ceventloop_eventfd()
        guard fd >= 0 else { return nil }
        eventFD = fd
    }

    deinit {
        Glibc.close(eventFD)
    }

    func post(_ reply: Reply) {
        add { $0.replies.append(reply) }
    }

    func hand(_ connection: HandedConnection) {
        add { $0.connections.append(connection) }
    }

    private func add(_ change: (inout Delivery) -> Void) {
        let wake = pending.withLock { pending in
            change(&pending.delivery)
            defer { pending.woken = true }
            return !pending.woken
        }
        if wake { ceventloop_eventfd_signal(eventFD) }
    }

    /// Wakes the loop with nothing posted (it then looks at the server's state).
    func nudge() {
        ceventloop_eventfd_signal(eventFD)
    }

    /// Everything posted so far. The eventfd is reset first, so that a post
    /// racing with this wakes the loop again rather than being missed.
    func take() -> Delivery {
        ceventloop_eventfd_drain(eventFD)
        return pending.withLock { pending in
            pending.woken = false
            defer { pending.delivery = Delivery() }
            return pending.delivery
        }
    }
}
