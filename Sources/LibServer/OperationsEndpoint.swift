import Foundation
import LibHTTPServer

/// What the operations listener (`--ops-listen`) answers, apart from the
/// library's own routes: `GET /livez` (the process answers), `GET /readyz`
/// (it should get requests: the database takes writes and it is not
/// draining), `GET /metrics` (Prometheus text) and `POST /drain`.
final class OperationsEndpoint: Sendable {
    let service: LibraryService
    /// The library's listener: what `/drain` drains and `/metrics` counts connections of.
    let server: HTTPServer
    let readiness: ReadinessProbe
    let version: String
    /// When the process started, in seconds since 1970.
    let startTime: Double

    /// One loop and two handler threads: probes and scrapes are few, and
    /// a readiness check that waits on the database holds one of them.
    static let limits: HTTPServerLimits = {
        var limits = HTTPServerLimits()
        limits.eventLoops = 1
        limits.handlerThreads = 2
        limits.maxConnections = 64
        return limits
    }()

    init(service: LibraryService, server: HTTPServer, database: String, version: String, startTime: Double) {
        self.service = service
        self.server = server
        readiness = ReadinessProbe(check: DatabaseWriteCheck(location: database), isDraining: { server.isDraining })
        self.version = version
        self.startTime = startTime
    }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        let reads = request.method == "GET" || request.method == "HEAD"
        switch (request.path, reads) {
        case ("/livez", true):
            return .respond(Self.text(200, "ok\n"))
        case ("/readyz", true):
            switch readiness.verdict() {
            case .ready: return .respond(Self.text(200, "ready\n"))
            case .notReady(let reason): return .respond(Self.text(503, "not ready: \(reason)\n"))
            }
        case ("/metrics", true):
            var response = Self.text(200, metrics())
            response.headers.set("Content-Type", MetricsExposition.contentType)
            return .respond(response)
        case ("/drain", _) where request.method == "POST":
            server.drain()
            return .respond(Self.text(200, "draining: /readyz answers 503; requests are still served\n"))
        case ("/livez", _), ("/readyz", _), ("/metrics", _):
            var response = Self.text(405, "\(request.path) accepts GET and HEAD\n")
            response.headers.set("Allow", "GET, HEAD")
            return .respond(response)
        case ("/drain", _):
            var response = Self.text(405, "/drain accepts POST\n")
            response.headers.set("Allow", "POST")
            return .respond(response)
        default:
            return .respond(Self.text(404, "no such path; try /livez, /readyz, /metrics or POST /drain\n"))
        }
    }

    private static func text(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]), body: Array(body.utf8))
    }

    /// Every metric, in the order of docs/DEPLOY.md's list.
    func metrics() -> String {
        var out = MetricsExposition()
        if let requests = service.requestMetrics {
            out.metric("lib_server_requests_total", type: "counter", help: "Requests answered, by route pattern, method and status.")
            for (row, status, count) in requests.requestCounts() {
                out.sample("lib_server_requests_total", [("route", row.route), ("method", row.method), ("status", status)], count)
            }
            out.metric("lib_server_request_duration_seconds", type: "histogram",
                       help: "Time from a request's dispatch to its answer, by route pattern and method.")
            for histogram in requests.histograms() {
                let labels = [("route", histogram.row.route), ("method", histogram.row.method)]
                for (bound, count) in zip(RequestMetrics.bucketBounds.map(MetricsExposition.number) + ["+Inf"], histogram.cumulative) {
                    out.sample("lib_server_request_duration_seconds_bucket", labels + [("le", bound)], count)
                }
                out.sample("lib_server_request_duration_seconds_sum", labels, histogram.sumSeconds)
                out.sample("lib_server_request_duration_seconds_count", labels, histogram.cumulative.last ?? 0)
            }
        }
        out.metric("lib_server_writes_total", type: "counter", help: "Book writes (v1 requests and v2 batch items) by outcome.")
        for outcome in WriteOutcomeCounts.Outcome.allCases {
            out.sample("lib_server_writes_total", [("outcome", outcome.label)], service.writeOutcomes.total(outcome))
        }
        out.metric("lib_server_reads_from_memory_total", type: "counter",
                   help: "Signed-in reads answered from memory: the same request was answered since the last commit.")
        out.sample("lib_server_reads_from_memory_total", service.recentReads.given)
        out.metric("lib_server_feed_waiters", type: "gauge", help: "Change-feed requests waiting for a change.")
        out.sample("lib_server_feed_waiters", service.changeWaiters.counts.waiting)
        out.metric("lib_server_db_pool_in_use", type: "gauge", help: "Database connections lent to requests now.")
        out.sample("lib_server_db_pool_in_use", service.store.connectionsInUse)
        out.metric("lib_server_db_pool_size", type: "gauge", help: "Database connections in the pool.")
        out.sample("lib_server_db_pool_size", service.store.poolSize)
        out.metric("lib_server_connections_open", type: "gauge", help: "Client connections open on the library listener.")
        out.sample("lib_server_connections_open", server.openConnections)
        out.metric("lib_server_draining", type: "gauge", help: "1 once the instance drains (POST /drain or SIGUSR1).")
        out.sample("lib_server_draining", server.isDraining ? 1 : 0)
        out.metric("lib_server_build_info", type: "gauge", help: "Always 1; the version is a label.")
        out.sample("lib_server_build_info", [("version", version)], 1)
        out.metric("process_start_time_seconds", type: "gauge", help: "Start time of the process since unix epoch in seconds.")
        out.sample("process_start_time_seconds", startTime)
        return out.text
    }
}
