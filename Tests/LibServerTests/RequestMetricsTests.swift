import Foundation
@testable import LibServer
import Testing

/// The counters behind `GET /metrics`: rows by route pattern, statuses by
/// number or class, cumulative histograms, and sums that lose no add when
/// many threads count at once.
@Suite struct RequestMetricsTests {
    static let routes = RouteTable(routes: LibraryService.protocolRoutes)

    @Test func countsByRoutePatternAndStatus() throws {
        let metrics = RequestMetrics(routes: Self.routes)
        let book = try #require(Self.routes.routes.first { $0.method == "GET" && $0.pattern.description == "/v1/books/{id}" })
        let row = metrics.row(route: book.index, method: "GET")
        metrics.record(row: row, status: 200, seconds: 0.002)
        metrics.record(row: row, status: 200, seconds: 0.2)
        metrics.record(row: row, status: 418, seconds: 0.002)
        metrics.record(row: metrics.row(route: nil, method: "BREW"), status: 404, seconds: 0.0001)
        let counts = metrics.requestCounts().map { "\($0.row.route) \($0.row.method) \($0.status) \($0.count)" }
        #expect(counts == ["/v1/books/{id} GET 200 2", "/v1/books/{id} GET 4xx 1", "unmatched other 404 1"])

        let histograms = metrics.histograms()
        #expect(histograms.count == 2)
        let bookHistogram = try #require(histograms.first { $0.row.route == "/v1/books/{id}" })
        // 0.002 s falls in le=0.0025 (the second bound), 0.2 s in le=0.25 (the eighth).
        #expect(bookHistogram.cumulative == [0, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3])
        #expect(abs(bookHistogram.sumSeconds - 0.204) < 0.000_01)
    }

    @Test func threadsCountingAtOnceLoseNothing() {
        let counters = ShardedCounters(count: 3)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<10_000 { counters.add(1, at: 1) }
        }
        #expect(counters.total(at: 1) == 160_000)
        #expect(counters.total(at: 0) == 0 && counters.total(at: 2) == 0)
    }

    @Test func labelValuesAreEscaped() {
        var exposition = MetricsExposition()
        exposition.sample("m", [("l", "a\"b\\c\nd")], 1.5)
        exposition.sample("n", 3)
        #expect(exposition.text == "m{l=\"a\\\"b\\\\c\\nd\"} 1.5\nn 3\n")
    }
}
