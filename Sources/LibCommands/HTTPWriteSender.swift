import LibBase
import LibClient
import LibNet
import LibSync

/// The push's sender: each outbox item as a protocol-v1 write
/// (`LibraryWriter`, one connection for the whole push), its answer as the
/// sync core's `WriteOutcome`. It keeps the last failure for the push's
/// explanation, and stops before a request once asked to or past the deadline.
struct HTTPWriteSender: WriteSender {
    let writer: LibraryWriter
    /// No request starts after this instant (`push --wait`); nil: no limit.
    let deadline: Double?
    /// Asked before each request; true stops the pass (SIGTERM in `push --watch`).
    let stopRequested: () -> Bool
    /// Why the last temporary or 401 outcome happened (nil when the time ran
    /// out or the push was stopped before sending).
    private(set) var lastFailure: TransportFailure?
    /// Whether the last pass stopped because the deadline had passed.
    private(set) var ranOutOfTime = false
    /// Whether the last pass stopped because stopRequested said so.
    private(set) var wasStopped = false

    init(api: ServerAPI, rules: BookRules, deadline: Double?, stopRequested: @escaping () -> Bool = { false }) {
        var api = api
        api.deadline = deadline
        writer = LibraryWriter(api: api, rules: rules)
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
        // A PUT sends the intent applied to the version it goes against.
        let request = WriteRequest(method: item.method == .delete ? .delete : .put, path: item.path,
                                   document: item.documentToSend, ifMatch: item.ifMatch, createOnly: item.createOnly,
                                   idempotencyKey: item.idempotencyKey)
        switch writer.send(request) {
        case .applied(let document, let etag): return .applied(document: document, etag: etag)
        case .conflict(let theirs, let etag): return .conflict(theirs: theirs, etag: etag)
        case .rejected(let problem): return .rejected(problem: problem)
        case .unauthorized(let failure):
            lastFailure = failure
            return .unauthorized
        case .temporary(let failure):
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
}
