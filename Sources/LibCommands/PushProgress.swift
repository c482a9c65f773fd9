import LibBase

/// "Pushing: 300 of 1000 writes answered" on a terminal while a push sends
/// (WaitProgress's one line, so nothing off a terminal or under -q), redrawn
/// at most ten times a second and cleared before the summary.
final class PushProgress {
    private let progress: WaitProgress
    /// The writes pending when the push began.
    private let pending: Int
    private var shownAt = -Double.infinity
    private var isShown = false

    init(progress: WaitProgress, pending: Int) {
        self.progress = progress
        self.pending = pending
    }

    func show(answered: Int) {
        let now = MonotonicClock.now()
        guard answered < pending, now - shownAt >= 0.1 else { return }
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
