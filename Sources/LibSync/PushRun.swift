import LibBase


/// What one pass over the outbox did.
public struct PushReport: Sendable, Equatable {
    public var applied = 0
    public var conflicts: [String] = []
    public var rejected: [String] = []
    /// What became of each write sent, in order (for `push --json`).
    public var results: [PushWriteResult] = []
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

/// One pass over the outbox: each sendable write in order, stopping at the
/// first temporary failure (order is kept) or 401, and before any send once
/// the account's generation moved. Answers are recorded in batches (see
/// `AnswerBatch`), and always before the pass returns.
public struct PushRun {
    let store: AccountStore
    let generation: Int64
    let recording: AnswerBatch.Limit

    /// Answers are recorded at least every 128 writes and every 200 ms: a
    /// commit (an fsync) per write cost lib about 40% of the server's pace,
    /// while a crash costs at most one batch sent again, which the server
    /// replays by key.
    public init(store: AccountStore, generation: Int64, recordEvery writes: Int = 128, orEvery seconds: Double = 0.2) {
        self.store = store
        self.generation = generation
        self.recording = AnswerBatch.Limit(writes: max(1, writes), seconds: seconds)
    }

    /// The pass's report, and the sender's failure behind a stop at a
    /// temporary failure or a 401 (nil otherwise).
    public func run<Sender: WriteSender>(with sender: inout Sender, now: () -> UnixSeconds = UnixClock.now) throws
        -> (report: PushReport, failure: Sender.Failure?) {
        var report = PushReport()
        var batch = AnswerBatch(limit: recording)
        var after: Int64 = 0
        // One transaction for the whole pass instead of one per write (a
        // commit is an fsync): from here on no edit merges into a write this
        // pass may send; later edits queue behind it.
        try store.outbox.claimSendable(now: now())
        func record(failure: Outbox.Failure? = nil, finished: Bool = false) throws {
            // Writes whose intent clashed with the version the write before
            // them left: conflicts, found without a request.
            for held in try store.outbox.record(batch.answers, failure: failure, finished: finished, now: now()) {
                report.conflicts.append(held.path)
                report.results.append(PushWriteResult(held, .conflict(theirsETag: nil)))
            }
            batch.clear()
        }
        while let next = try store.outbox.nextSendable(after: after) {
            after = next.seq
            if batch.holds(next.path) { continue }
            guard try store.generation() == generation else {
                try record(finished: true)
                report.stop = .loggedOut
                return (report, nil)
            }
            guard let item = batch.prepared(next) else { continue }
            let (outcome, failure) = sender.send(item)
            switch outcome {
            case .applied(_, let etag):
                report.applied += 1
                report.results.append(PushWriteResult(item, .applied(etag: etag)))
            case .conflict(_, let etag):
                report.conflicts.append(item.path)
                report.results.append(PushWriteResult(item, .conflict(theirsETag: etag)))
            case .rejected(let problem):
                report.rejected.append(item.path)
                report.results.append(PushWriteResult(item, .rejected(problem: problem)))
            case .unauthorized:
                // The server refused the request: the write was not applied.
                try record(failure: Outbox.Failure(seq: item.seq, error: "the session expired (401)", sent: false), finished: true)
                report.results.append(PushWriteResult(item, .failed(reason: "the session expired (401)")))
                report.stop = .unauthorized
                return (report, failure)
            case .temporary(let reason, let retryAfter, let sent):
                try record(failure: Outbox.Failure(seq: item.seq, error: reason, sent: sent), finished: true)
                report.results.append(PushWriteResult(item, .failed(reason: reason)))
                report.stop = .temporary(reason: reason, retryAfter: retryAfter)
                return (report, failure)
            }
            batch.add(WriteAnswer(seq: item.seq, outcome: outcome), for: item)
            if batch.isDue { try record() }
        }
        try record(finished: true)
        return (report, nil)
    }
}
