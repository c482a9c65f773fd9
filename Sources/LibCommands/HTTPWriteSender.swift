import LibBase
import LibClient
import LibNet
import LibSync

/// The push's sender: each outbox item as a protocol-v1 write
/// (`LibraryWriter`, one connection for the whole push), its answer as the
/// sync core's `WriteOutcome`, with what stopped it (`PushStop`). It stops
/// before a request once asked to or past the deadline, and keeps no state.
struct HTTPWriteSender: WriteSender {
    /// Why a write was not done: what the push explains.
    enum PushStop: Sendable {
        /// `stopRequested` said so (SIGTERM or SIGHUP in `push --watch`).
        case stopped
        /// The time given with `--wait` ran out before the request.
        case outOfTime
        /// The request failed, or its answer was not the library server's.
        case failed(TransportFailure)
    }

    let writer: LibraryWriter
    /// No request starts after this instant (`push --wait`); nil: no limit.
    let deadline: Double?
    /// Asked before each request; true stops the pass.
    let stopRequested: () -> Bool

    init(api: ServerAPI, rules: BookRules, deadline: Double?, stopRequested: @escaping () -> Bool = { false }) {
        var api = api
        api.deadline = deadline
        writer = LibraryWriter(api: api, rules: rules)
        self.deadline = deadline
        self.stopRequested = stopRequested
    }

    func send(_ item: OutboxItem) -> (WriteOutcome, PushStop?) {
        if stopRequested() {
            return (.temporary(reason: "not sent: the push was stopped", retryAfter: nil, sent: false), .stopped)
        }
        if let deadline, MonotonicClock.now() >= deadline {
            return (.temporary(reason: "the time given with --wait ran out", retryAfter: nil, sent: false), .outOfTime)
        }
        // A PUT sends the intent applied to the version it goes against.
        let request = WriteRequest(method: item.method == .delete ? .delete : .put, path: item.path,
                                   document: item.documentToSend, ifMatch: item.ifMatch, createOnly: item.createOnly,
                                   idempotencyKey: item.idempotencyKey)
        switch writer.send(request) {
        case .applied(let document, let etag): return (.applied(document: document, etag: etag), nil)
        case .conflict(let theirs, let etag): return (.conflict(theirs: theirs, etag: etag), nil)
        case .rejected(let problem): return (.rejected(problem: problem), nil)
        case .unauthorized(let failure): return (.unauthorized, failure.map { .failed($0) })
        case .temporary(let failure):
            let retryAfter: RetryAfter?
            switch failure.kind {
            case .serverError(_, _, let after), .rateLimited(let after): retryAfter = after
            default: retryAfter = nil
            }
            let reason = FailureExplanation(failure: failure, path: .unknown, account: nil, pendingWrites: 0).reason.token
            return (.temporary(reason: reason, retryAfter: retryAfter.map { Double($0.seconds) }, sent: failure.mayHaveReachedServer),
                    .failed(failure))
        }
    }
}
