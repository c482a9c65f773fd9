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
    /// Monotonic seconds, for how long answers have waited to be recorded.
    let monotonicNow: () -> Double

    /// Answers are recorded at least every 128 writes and every 200 ms: a
    /// commit (an fsync) per write cost lib about 40% of the server's pace,
    /// while a crash costs at most one batch sent again, which the server
    /// replays by key.
    public init(store: AccountStore, generation: Int64, recordEvery writes: Int = 128, orEvery seconds: Double = 0.2,
                monotonicNow: @escaping () -> Double = MonotonicClock.now) {
        self.store = store
        self.generation = generation
        self.recording = AnswerBatch.Limit(writes: max(1, writes), seconds: seconds)
        self.monotonicNow = monotonicNow
    }

    /// The pass's report, and the sender's failure behind a stop at a
    /// temporary failure or a 401 (nil otherwise).
    ///
    /// With a sender that takes batches, the writes go in batches of
    /// distinct paths: a later write of a path goes in a later batch, against
    /// the version the answer to the earlier one left. Each batch's answers
    /// are recorded (one transaction) before the next batch is made.
    /// `answered` is told, after each request, how many writes have had an
    /// answer so far (for a progress line).
    public func run<Sender: WriteSender>(with sender: inout Sender, now: () -> UnixSeconds,
                                         answered: (Int) -> Void = { _ in }) throws
        -> (report: PushReport, failure: Sender.Failure?) {
        var report = PushReport()
        if let (outcome, failure) = sender.prepare() {
            report.stop = Self.stop(for: outcome)
            return (report, failure)
        }
        var batch = AnswerBatch(limit: recording)
        var after: Int64 = 0
        let limit = max(1, sender.batchLimit)
        // One transaction for the whole pass instead of one per write (a
        // commit is an fsync): from here on no edit merges into a write this
        // pass may send; later edits queue behind it.
        try store.outbox.claimSendable(sendingWith: sender.wireProtocol, now: now())
        func record(failures: [Outbox.Failure] = [], finished: Bool = false) throws {
            // Writes whose intent clashed with the version the write before
            // them left: conflicts, found without a request.
            for held in try store.outbox.record(batch.answers, failures: failures, finished: finished, now: now()) {
                report.conflicts.append(held.path)
                report.results.append(PushWriteResult(held, .conflict(theirsETag: nil)))
            }
            batch.clear()
        }
        while true {
            var items: [OutboxItem] = []
            var paths: Set<String> = []
            while items.count < limit, let next = try store.outbox.nextSendable(after: after) {
                after = next.seq
                if batch.holds(next.path) || paths.contains(next.path) { continue }
                guard let item = batch.prepared(next) else { continue }
                items.append(item)
                paths.insert(item.path)
            }
            if items.isEmpty { break }
            guard try store.generation() == generation else {
                try record(finished: true)
                report.stop = .loggedOut
                return (report, nil)
            }
            var failures: [Outbox.Failure] = []
            var stopFailure: Sender.Failure?
            for (item, (outcome, failure)) in zip(items, sender.send(batch: items)) {
                switch outcome {
                case .applied(_, let etag, let merged):
                    report.applied += 1
                    report.results.append(PushWriteResult(item, .applied(etag: etag, merged: merged)))
                case .conflict(_, let etag):
                    report.conflicts.append(item.path)
                    report.results.append(PushWriteResult(item, .conflict(theirsETag: etag)))
                case .rejected(let problem):
                    report.rejected.append(item.path)
                    report.results.append(PushWriteResult(item, .rejected(problem: problem)))
                case .unauthorized:
                    // The server refused the request: the write was not applied.
                    failures.append(Outbox.Failure(seq: item.seq, error: "the session expired (401)", sent: false))
                    report.results.append(PushWriteResult(item, .failed(reason: "the session expired (401)")))
                case .temporary(let reason, _, let sent):
                    failures.append(Outbox.Failure(seq: item.seq, error: reason, sent: sent))
                    report.results.append(PushWriteResult(item, .failed(reason: reason)))
                }
                if outcome.stopsThePass {
                    // The first stop explains the pass; the writes of the
                    // same batch after it still get their own answers.
                    if report.stop == nil {
                        report.stop = Self.stop(for: outcome)
                        stopFailure = failure
                    }
                } else {
                    batch.add(OutboxAnswer(seq: item.seq, outcome: outcome), for: item, at: monotonicNow())
                }
            }
            answered(report.results.count)
            if report.stop != nil {
                try record(failures: failures, finished: true)
                return (report, stopFailure)
            }
            if limit > 1 {
                // The batch's answers settle its writes and rebase the next
                // write of each path: the next batch starts from the top.
                try record()
                after = 0
            } else if batch.isDue(at: monotonicNow()) {
                try record()
            }
        }
        try record(finished: true)
        return (report, nil)
    }

    private static func stop(for outcome: WriteOutcome) -> PushReport.Stop? {
        switch outcome {
        case .unauthorized: return .unauthorized
        case .temporary(let reason, let retryAfter, _): return .temporary(reason: reason, retryAfter: retryAfter)
        case .applied, .conflict, .rejected: return nil
        }
    }
}
