import LibBase

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
    /// Answer bytes one listing reads, whichever pulls read its pages (a
    /// listing without an end would otherwise grow the store pull after pull).
    public var listingBytes: Int { bytes * 8 }

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

/// A pull that stopped before the server said it was done: its budget ran
/// out, or the server's answers contradicted themselves. What was stored
/// is kept and the next pull goes on from there.
public struct PullStopped: Error, Sendable, Equatable {
    /// "after reading 3.0 MB (a pull reads at most 3.0 MB)", "at a page it had listed already (after b-9)".
    public let why: String

    public init(why: String) {
        self.why = why
    }
}

/// A pull's spending against its budget, counted as answers arrive.
struct PullMeter {
    let budget: PullBudget
    /// Monotonic seconds, read after each answer.
    let elapsed: () -> Double
    let started: Double
    private(set) var bytes = 0

    init(_ budget: PullBudget, elapsed: @escaping () -> Double) {
        self.budget = budget
        self.elapsed = elapsed
        self.started = elapsed()
    }

    /// Counts one answer; throws once the pull has read or spent its budget.
    mutating func spend(_ answerBytes: Int) throws(PullStopped) {
        bytes += answerBytes
        if bytes > budget.bytes {
            throw PullStopped(why: "after reading \(Self.megabytes(bytes)) (a pull reads at most \(Self.megabytes(budget.bytes)))")
        }
        let spent = elapsed() - started
        if spent > budget.seconds {
            throw PullStopped(why: "after \(Int(spent)) s (a pull reads for at most \(Int(budget.seconds)) s)")
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        let mb = Double(bytes) / 1_048_576
        return mb < 10 ? "\((mb * 10).rounded() / 10) MB" : "\(Int(mb.rounded())) MB"
    }
}
