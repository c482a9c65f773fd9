import LibBase

/// Requests counted by route, method and status, and their durations as a
/// histogram by route and method, for `GET /metrics` on the operations
/// listener. A route is its pattern in the route table (`/v1/books/{id}`),
/// never the path a client sent, so no book id or user name is a label; a
/// request no route takes counts under `route="unmatched"`.
final class RequestMetrics: Sendable {
    /// Upper bounds of the duration buckets, in seconds (`le`).
    static let bucketBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
    /// The statuses counted by number; any other counts under its class ("4xx").
    static let namedStatuses = [200, 201, 204, 206, 304, 400, 401, 403, 404, 405, 408, 409, 410, 411, 412, 413, 415,
                                422, 428, 429, 431, 500, 501, 503, 504]
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
    /// The methods an unmatched request is counted under; any other is "other".
    static let unmatchedMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]

    struct Row: Sendable {
        let route: String
        let method: String
    }

    /// One per route, then one per method for unmatched requests.
    let rows: [Row]
    private let routeCount: Int
    private let requests: ShardedCounters
    /// Per row: a count per bucket (not cumulative), one past the last
    /// bound, and the sum in microseconds.
    private let durations: ShardedCounters
    private static let statusSlots = namedStatuses.count + statusClasses.count
    private static let durationSlots = bucketBounds.count + 2
    private static let slotOfStatus: [Int] = (0..<600).map { status in
        if let named = namedStatuses.firstIndex(of: status) { return named }
        return namedStatuses.count + min(max(status / 100, 1), 5) - 1
    }

    init(routes: RouteTable) {
        routeCount = routes.routes.count
        rows = routes.routes.map { Row(route: $0.pattern.description, method: $0.method) }
            + Self.unmatchedMethods.map { Row(route: "unmatched", method: $0) }
        requests = ShardedCounters(count: rows.count * Self.statusSlots)
        durations = ShardedCounters(count: rows.count * Self.durationSlots)
    }

    /// The row of a request: its route's index, or nil when no route took it.
    func row(route index: Int?, method: String) -> Int {
        if let index { return index }
        return routeCount + (Self.unmatchedMethods.firstIndex(of: method) ?? Self.unmatchedMethods.count - 1)
    }

    func record(row: Int, status: Int, seconds: Double) {
        let slot = Self.slotOfStatus[min(max(status, 0), 599)]
        requests.add(1, at: row * Self.statusSlots + slot)
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 } ?? Self.bucketBounds.count
        durations.add(1, at: row * Self.durationSlots + bucket)
        durations.add(Int(max(0, seconds) * 1e6), at: row * Self.durationSlots + Self.durationSlots - 1)
    }

    /// Counts of the rows and statuses seen, for the exposition.
    func requestCounts() -> [(row: Row, status: String, count: Int)] {
        var counts: [(row: Row, status: String, count: Int)] = []
        for (index, row) in rows.enumerated() {
            for slot in 0..<Self.statusSlots {
                let count = requests.total(at: index * Self.statusSlots + slot)
                guard count > 0 else { continue }
                let status = slot < Self.namedStatuses.count ? String(Self.namedStatuses[slot])
                    : Self.statusClasses[slot - Self.namedStatuses.count]
                counts.append((row, status, count))
            }
        }
        return counts
    }

    struct Histogram {
        let row: Row
        /// Cumulative, one per bound, then +Inf (the count).
        let cumulative: [Int]
        let sumSeconds: Double
    }

    /// The histograms of the rows that have seen a request.
    func histograms() -> [Histogram] {
        rows.enumerated().compactMap { index, row in
            let base = index * Self.durationSlots
            var running = 0
            let cumulative = (0...Self.bucketBounds.count).map { bucket in
                running += durations.total(at: base + bucket)
                return running
            }
            guard running > 0 else { return nil }
            return Histogram(row: row, cumulative: cumulative,
                             sumSeconds: Double(durations.total(at: base + Self.durationSlots - 1)) / 1e6)
        }
    }
}

/// What became of each write item, counted as the write pipeline settles it.
final class WriteOutcomeCounts: Sendable {
    enum Outcome: Int, CaseIterable {
        /// Written (a create, update or delete).
        case applied
        /// Not written: its precondition failed (412).
        case conflict
        /// A delete of a book that is not there (404).
        case notFound = 2
        /// Refused before anything was decided for its key (409, 422).
        case rejected
        /// Its key's recorded answer sent again.
        case replayed
        /// Its transaction failed (the database, a lost connection).
        case failed

        var label: String {
            switch self {
            case .applied: "applied"
            case .conflict: "conflict"
            case .notFound: "not_found"
            case .rejected: "rejected"
            case .replayed: "replayed"
            case .failed: "failed"
            }
        }
    }

    private let counters = ShardedCounters(count: Outcome.allCases.count)

    func count(_ outcome: Outcome, _ amount: Int = 1) {
        counters.add(amount, at: outcome.rawValue)
    }

    func total(_ outcome: Outcome) -> Int { counters.total(at: outcome.rawValue) }
}
