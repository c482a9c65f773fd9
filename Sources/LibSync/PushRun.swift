
/// What one pass over the outbox did.
public struct PushReport: Sendable, Equatable {
    public var applied = 0
    public var conflicts: [String] = []
    public var rejected: [String] = []
    /// Why the pass stopped early, if it did.
    public var stop: Stop?

    public enum Stop: Sendable, Equatable {
        case temporary(reason: String, retryAfter: Double?)
        case unauthorized
        /// Logout began: nothing more is sent.
        case loggedOut
    }

    public init() {}
}

/// One pass over the outbox: each sendable write in order, recorded as soon
/// as its answer comes, stopping at the first temporary failure (order is
/// kept) or 401, and before any send once the account's generation moved.
public struct PushRun {
    let store: AccountStore
    let generation: Int64

    public init(store: AccountStore, generation: Int64) {
        self.store = store
        self.generation = generation
    }

    public func run<Sender: WriteSender>(with sender: inout Sender, now: () -> UnixSeconds = UnixClock.now) throws -> PushReport {
        var report = PushReport()
        var after: Int64 = 0
        // One transaction for the whole pass instead of one per write (a
        // commit is an fsync): from here on no edit merges into a write this
        // pass may send; later edits queue behind it.
        try store.outbox.markPendingAttempted(now: now())
        while let item = try store.outbox.nextSendable(after: after) {
            guard try store.generation() == generation else {
                report.stop = .loggedOut
                return report
            }
            let outcome = sender.send(item)
            switch outcome {
            case .applied(let document, let etag):
                try store.outbox.recordSuccess(seq: item.seq, document: document, etag: etag, now: now())
                report.applied += 1
            case .conflict(let theirs, let etag):
                try store.outbox.recordConflict(seq: item.seq, theirsBody: theirs, theirsETag: etag, now: now())
                report.conflicts.append(item.path)
            case .rejected(let problem):
                try store.outbox.recordRejection(seq: item.seq, problem: problem, now: now())
                report.rejected.append(item.path)
            case .unauthorized:
                try store.outbox.recordFailure(seq: item.seq, error: "the session expired (401)", now: now())
                report.stop = .unauthorized
                return report
            case .temporary(let reason, let retryAfter):
                try store.outbox.recordFailure(seq: item.seq, error: reason, now: now())
                report.stop = .temporary(reason: reason, retryAfter: retryAfter)
                return report
            }
            after = item.seq
        }
        return report
    }
}
