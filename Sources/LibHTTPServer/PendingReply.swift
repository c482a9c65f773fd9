import Synchronization

/// An answer a handler gives later (a change feed that waits for a change):
/// the handler returns `.later(pending)` at once and calls `complete` from
/// any thread when the answer is ready. Meanwhile the request holds no
/// thread. The first `complete` wins; later ones are ignored. When the
/// server stops first, the connection gets `answerAtStop` instead, and so
/// it does when its client closes the connection while it waits (after
/// which the handler's `whenClientLeaves` action runs).
public final class PendingReply: Sendable {
    public let answerAtStop: HTTPResponse

    private struct State {
        var inbox: LoopInbox?
        var connection: UInt64 = 0
        var reply: HTTPReply?
        var delivered = false
        var clientLeft = false
        var whenClientLeaves: (@Sendable () -> Void)?
        /// The first `complete`'s reply, and who wants to know of it.
        var completedWith: HTTPReply?
        var whenCompleted: (@Sendable (HTTPReply) -> Void)?
    }

    private let state = Mutex(State())

    public init(answerAtStop: HTTPResponse) {
        self.answerAtStop = answerAtStop
    }

    public func complete(_ reply: HTTPReply) {
        let (target, observer): ((LoopInbox, UInt64)?, (@Sendable (HTTPReply) -> Void)?) = state.withLock { state in
            guard !state.delivered, state.reply == nil else { return (nil, nil) }
            state.completedWith = reply
            defer { state.whenCompleted = nil }
            guard let inbox = state.inbox else {
                state.reply = reply
                return (nil, state.whenCompleted)
            }
            state.delivered = true
            return ((inbox, state.connection), state.whenCompleted)
        }
        observer?(reply)
        if let (inbox, connection) = target { inbox.post(LoopInbox.Reply(connection: connection, reply: reply)) }
    }

    /// Runs `action` with the reply once `complete` is first called (at once
    /// if it has been): what counts the answers that come later.
    public func whenCompleted(_ action: @escaping @Sendable (HTTPReply) -> Void) {
        let done: HTTPReply? = state.withLock { state in
            if state.completedWith == nil { state.whenCompleted = action }
            return state.completedWith
        }
        if let done { action(done) }
    }

    /// Whether `complete` has been called (a waiter may stop waiting).
    public var isCompleted: Bool { state.withLock { $0.delivered || $0.reply != nil } }

    /// What to do when the client closes its connection before the answer
    /// (let go of what the wait holds); at once if it has already.
    public func whenClientLeaves(_ action: @escaping @Sendable () -> Void) {
        let gone = state.withLock { state in
            if !state.clientLeft { state.whenClientLeaves = action }
            return state.clientLeft
        }
        if gone { action() }
    }

    /// Called by the loop that holds the connection when its peer has sent
    /// end of file (EPOLLRDHUP): the wait ends with `answerAtStop`, which a
    /// peer that only shut down its sending side still reads.
    func clientLeft() {
        let action = state.withLock { state in
            state.clientLeft = true
            defer { state.whenClientLeaves = nil }
            return state.whenClientLeaves
        }
        complete(.respond(answerAtStop))
        action?()
    }

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
