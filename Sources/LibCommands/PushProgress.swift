import LibBase

/// "Pushing: 300 of 1000 writes answered" on a terminal while a push sends
/// (WaitProgress's one line, so nothing off a terminal or under -q), redrawn
/// at most ten times a second and cleared before the summary; with
/// `--json`, a progress record for each batch answered but the last
/// (`ProgressRecords`).
final class PushProgress {
    private let progress: WaitProgress
    private let records: ProgressRecords?
    /// The writes pending when the push began.
    private let pending: Int
    private var shownAt = -Double.infinity
    private var isShown = false

    init(progress: WaitProgress, pending: Int, records: ProgressRecords? = nil) {
        self.progress = progress
        self.pending = pending
        self.records = records
    }

    func show(answered: Int) {
        guard answered < pending else { return }
        records?.write([("answered", .integer(Int64(answered))), ("pending", .integer(Int64(pending)))])
        let now = MonotonicClock.now()
        guard now - shownAt >= 0.1 else { return }
        shownAt = now
        isShown = true
        progress.show("Pushing: \(answered) of \(Wording.writes(pending)) answered", secondsLeft: nil)
    }

    func clear() {
        guard isShown else { return }
        progress.clear()
        isShown = false
    }
}
