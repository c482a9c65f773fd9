import LibBase
import Synchronization

/// "Something may have changed in the change feed": posted after a write
/// commits on this instance, by the PostgreSQL listener when another
/// instance's commit is announced, and when a feed request starts to wait.
/// An event count, so that no notice slips between a check and the sleep.
/// A write posts only while a feed request waits (`watched`): otherwise it
/// costs one atomic load.
final class ChangeNotices: Sendable {
    private let changes = EventCount()
    /// Whether anyone waits for notices (feed requests are held).
    let watched = Atomic<Bool>(false)

    /// After a commit on this instance: skipped when no feed request waits.
    func postIfWatched() {
        if watched.load(ordering: .relaxed) { post() }
    }

    func post() { changes.notify() }

    func ticket() -> UInt64 { changes.ticket() }

    /// Sleeps until a notice after `ticket`, or until `deadline` (seconds on
    /// `MonotonicClock`; nil: none).
    func wait(after ticket: UInt64, until deadline: Double?) {
        changes.wait(after: ticket, until: deadline)
    }
}
