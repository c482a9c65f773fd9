import Synchronization

/// An answer a handler gives later (a change feed that waits for a change):
/// the handler returns `.later(pending)` at once and calls `complete` from
/// any thread when the answer is ready. Meanwhile the request holds no
/// thread. The first `complete` wins; later ones are ignored. When the
/// server stops first, the connection gets `answerAtStop` instead.
public final class PendingReply: Sendable {
    public let answerAtStop: HTTPResponse

    private struct State {
        var inbox: LoopInbox?
        var connection: UInt64 = 0
        var reply: HTTPReply?
        var delivered = false
    }

    private let state = Mutex(State())

    public init(answerAtStop: HTTPResponse) {
        self.answerAtStop = answerAtStop
    }

    public func complete(_ reply: HTTPReply) {
        let target: (LoopInbox, UInt64)? = state.withLock { state in
            guard !state.delivered, state.reply == nil else { return nil }
            guard let inbox = state.inbox else {
                state.reply = reply
                return nil
            }
            state.delivered = true
            return (inbox, state.connection)
        }
        if let (inbox, connection) = target { inbox.post(LoopInbox.Reply(connection: connection, reply: reply)) }
    }

    /// Whether `complete` has been called (a waiter may stop waiting).
    public var isCompleted: Bool { state.withLock { $0.delivered || $0.reply != nil } }

    /// Called by the loop that holds the connection: where to deliver.
    func attach(to inbox: LoopInbox, connection: UInt64) {
        let early: HTTPReply? = state.withLock { state in
            state.inbox = inbox
            state.connection = connection
            guard let reply = state.reply, !state.delivered else { return nil }
            state.delivered = true
            return reply
        }
        if let early { inbox.post(LoopInbox.Reply(connection: connection, reply: early)) }
    }
}
