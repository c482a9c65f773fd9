import LibBase
import LibNet

/// What one pull may take from a server, whatever its answers say: a feed
/// that never stops, a listing that never ends or a cursor that cycles
/// cannot keep lib reading (DESIGN.md: every loop over what a peer sends
/// has a budget the peer does not control). What was stored before a stop
/// is kept; the next pull goes on from there.
public struct PullBudget: Sendable, Equatable {
    /// Answer bytes one pull reads, listing and feed together.
    public var bytes: Int
    /// Seconds one pull spends reading.
    public var seconds: Double

    /// 128 MB: a first pull of 100,000 books reads about 30 MB. Against a
    /// feed that never ends the store grows by up to about six times what
    /// was read (documents and their search index), and the pull stops.
    public init(bytes: Int = 128 * 1024 * 1024, seconds: Double = 600) {
        self.bytes = bytes
        self.seconds = seconds
    }

    /// `push --watch`'s pulls: smaller, so that a pull never holds the
    /// writes saved meanwhile for long.
    public static let watching = PullBudget(bytes: 32 * 1024 * 1024, seconds: 60)

    /// The longest cursor lib keeps: a feed's `next` or a listing's `next`
    /// over it is refused at once (the server's are a few dozen bytes).
    public static let maxCursorBytes = 4096

    /// More members than a listing's own `total` by this much (books added
    /// while the pages come) and it is not the listing the server said.
    public static func listingAllows(total: Int) -> Int { total + max(1000, total / 10) }

    /// LIB_PULL_MAX_BYTES and LIB_PULL_MAX_SECONDS, when set to positive numbers.
    public func overridden(by environment: [String: String]) -> PullBudget {
        var budget = self
        if let text = environment["LIB_PULL_MAX_BYTES"], let bytes = Int(text), bytes > 0 { budget.bytes = bytes }
        if let text = environment["LIB_PULL_MAX_SECONDS"], let seconds = Double(text), seconds > 0 { budget.seconds = seconds }
        return budget
    }
}

/// A pull's spending against its budget, counted as answers arrive.
public final class PullMeter {
    public let budget: PullBudget
    let server: String
    let started = MonotonicClock.now()
    public private(set) var bytes = 0

    public init(_ budget: PullBudget, server: String) {
        self.budget = budget
        self.server = server
    }

    /// Counts one answer; throws once the pull has read or spent its budget.
    func spend(_ answerBytes: Int) throws {
        bytes += answerBytes
        if bytes > budget.bytes {
            throw stop("after reading \(Self.megabytes(bytes)) (a pull reads at most \(Self.megabytes(budget.bytes)))")
        }
        let elapsed = MonotonicClock.now() - started
        if elapsed > budget.seconds {
            throw stop("after \(Int(elapsed)) s (a pull reads for at most \(Int(budget.seconds)) s)")
        }
    }

    /// A reason to stop that the server's answers gave (a cursor seen before,
    /// more books than it said).
    public func stop(_ why: String) -> CommandFailure {
        CommandFailure("Stopped pulling from \(server) \(why); what was pulled is kept on this device, "
                       + "and the next lib pull goes on from there.", exitCode: .temporaryFailure, reason: "pull-budget")
    }

    static func megabytes(_ bytes: Int) -> String {
        let mb = Double(bytes) / 1_048_576
        return mb < 10 ? "\((mb * 10).rounded() / 10) MB" : "\(Int(mb.rounded())) MB"
    }
}
