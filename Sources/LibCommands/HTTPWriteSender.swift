import LibJSON
import LibNet
import LibSync
import LibBase

/// Sends outbox items to the server over one `ServerAPI` (and so one
/// connection for the whole push), and reads each answer as DESIGN.md's
/// "Writes: the outbox" says: 2xx applied, 412 conflict, 401 unauthorized,
/// 409/429/5xx and transport failures temporary, other 4xx rejected.
///
/// A write is done only when the library server proves it: an answer that
/// settles a write (2xx, 412, other 4xx) must carry the request's
/// Idempotency-Key back, and a PUT's success must be 200/201
/// `application/json` with an ETag and the book itself. Anything else (a
/// captive portal's page or 204, `{}`, cut JSON) is temporary: the write
/// stays pending, in order, with the same key.
struct HTTPWriteSender: WriteSender {
    /// The requests, each capped to what is left of `deadline`.
    let api: ServerAPI
    /// No request starts after this instant (`push --wait`); nil: no limit.
    let deadline: Double?
    /// Why the last temporary outcome happened, for the user's explanation
    /// (nil when the time ran out before sending).
    private(set) var lastFailure: TransportFailure?
    /// Whether the last pass stopped because the deadline had passed.
    private(set) var ranOutOfTime = false
    /// What a returned book is checked with: the account's book schema.
    var rules = BookRules.builtIn
    /// Asked before each request; true stops the pass (SIGTERM in `push --watch`).
    let stopRequested: () -> Bool
    /// Whether the last pass stopped because stopRequested said so.
    private(set) var wasStopped = false

    init(api: ServerAPI, deadline: Double?, stopRequested: @escaping () -> Bool = { false }) {
        var api = api
        api.deadline = deadline
        self.api = api
        self.deadline = deadline
        self.stopRequested = stopRequested
    }

    mutating func send(_ item: OutboxItem) -> WriteOutcome {
        lastFailure = nil
        ranOutOfTime = false
        if stopRequested() {
            wasStopped = true
            return .temporary(reason: "not sent: the push was stopped", retryAfter: nil, sent: false)
        }
        if let deadline, MonotonicClock.now() >= deadline {
            ranOutOfTime = true
            return .temporary(reason: "the time given with --wait ran out", retryAfter: nil, sent: false)
        }
        let target = "/v1/" + item.path
        var headers = [("Idempotency-Key", item.idempotencyKey)]
        if item.createOnly {
            headers.append(("If-None-Match", "*"))
        } else if let ifMatch = item.ifMatch {
            headers.append(("If-Match", ifMatch))
        }
        let response: HTTPResponse
        do {
            switch item.method {
            case .put:
                // The intent applied to the version it goes against.
                guard let document = item.documentToSend else {
                    return .rejected(problem: "the change has no version of the document to apply to")
                }
                response = try api.send("PUT", target, headers: headers, json: .object(document))
            case .delete:
                response = try api.send("DELETE", target, headers: headers)
            }
        } catch {
            return temporary(api.explainedThroughProxy(error))
        }
        return outcome(of: response, for: item)
    }

    /// What one answer means for the write.
    mutating func outcome(of response: HTTPResponse, for item: OutboxItem) -> WriteOutcome {
        let settles = (200...299).contains(response.status) || ((400...499).contains(response.status)
            && ![401, 409, 429].contains(response.status))
        if settles, let doubt = Self.doubt(about: response, for: item, rules: rules) {
            return temporary(TransportFailure(kind: .notFromLibraryServer(seen: doubt), endpoint: api.endpoint,
                                              proxy: response.proxy))
        }
        switch response.status {
        case 200...299:
            guard item.method == .put else { return .applied(document: nil, etag: response.headers["ETag"]) }
            return .applied(document: String(decoding: response.body, as: UTF8.self), etag: response.headers["ETag"])
        case 412:
            let problem = response.json
            let current = problem?["current"]
            let theirs = current.flatMap { $0.isNull ? nil : $0.serialized() }
            let etag = problem?["current_etag"]?.stringValue ?? response.headers["ETag"]
            return .conflict(theirs: theirs, etag: etag)
        case 401:
            lastFailure = api.failure(for: response)
            return .unauthorized
        case 409:
            // The same key is still being processed (an earlier attempt whose
            // answer was lost): the same request later replays its result.
            let failure = TransportFailure(
                kind: .serverError(status: 409, reason: "Conflict", retryAfter: response.retryAfter), endpoint: api.endpoint)
            return temporary(failure)
        case 429, 500...599, 300...399:
            guard let failure = api.failure(for: response) else { return notTheServers(response) }
            return temporary(failure)
        case 400...499:
            return .rejected(problem: response.problemDetail)
        default:
            return notTheServers(response)
        }
    }

    /// A 304 to a write, a 1xx as the final answer, a status outside
    /// 100-599: nothing the library server sends, so nothing that may drop
    /// the write (found by the client-answer fuzz target, which saw a write
    /// rejected on "HTTP/1.1 3").
    private mutating func notTheServers(_ response: HTTPResponse) -> WriteOutcome {
        temporary(TransportFailure(kind: .notFromLibraryServer(seen: response.seen), endpoint: api.endpoint,
                                   proxy: response.proxy))
    }

    /// What keeps an answer that would settle `item` from proving it came
    /// from the library server, or nil when it does prove it.
    static func doubt(about response: HTTPResponse, for item: OutboxItem, rules: BookRules) -> String? {
        guard response.headers["Idempotency-Key"] == item.idempotencyKey else {
            return "\(response.seen) without this write's Idempotency-Key"
        }
        guard (200...299).contains(response.status), item.method == .put else { return nil }
        guard response.status == 200 || response.status == 201 else { return "\(response.seen) to a PUT" }
        guard response.mediaType == "application/json" else { return "\(response.seen) where a book was expected" }
        guard let etag = response.headers["ETag"], !etag.isEmpty else { return "\(response.status) JSON without an ETag" }
        let id = String(item.path.split(separator: "/").last ?? "")
        return ServedBook.problem(in: response.body, id: id, rules: rules).map { "\(response.status) with \($0)" }
    }

    private mutating func temporary(_ failure: TransportFailure) -> WriteOutcome {
        lastFailure = failure
        let retryAfter: RetryAfter?
        switch failure.kind {
        case .serverError(_, _, let after), .rateLimited(let after): retryAfter = after
        default: retryAfter = nil
        }
        return .temporary(reason: FailureExplanation(failure: failure, path: .unknown, account: nil, pendingWrites: 0).reason.token,
                          retryAfter: retryAfter.map { Double($0.seconds) }, sent: failure.mayHaveReachedServer)
    }
}
