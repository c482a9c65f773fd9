import LibBase

/// What the server's answer (or its absence) means for one write.
public enum WriteOutcome: Sendable, Equatable {
    /// 2xx: applied (or replayed). The document the server returned, when
    /// any, and its ETag; under protocol v2, the others' changes it was
    /// applied on top of, if it was merged with any.
    case applied(document: String?, etag: String?, merged: MergedChanges? = nil)
    /// 412: someone else changed it. The server's current document (nil: deleted) and ETag.
    case conflict(theirs: String?, etag: String?)
    /// Another 4xx: the server will not take it as it is.
    case rejected(problem: String)
    /// 401: the session is gone; nothing more can be sent.
    case unauthorized
    /// Transport failure, timeout, 5xx, 429, 409 (key in flight): try again
    /// later, in the same order, with the same key. `retryAfter` in seconds;
    /// `sent`: the request may have reached the server (a connection was
    /// made and its bytes written), so the key may be known there.
    case temporary(reason: String, retryAfter: Double?, sent: Bool)
}

/// Sends outbox items to the server, each with its `Idempotency-Key` and
/// its precondition: one by one (protocol v1's `PUT`/`DELETE`), or up to
/// `batchLimit` in one request (protocol v2). Implemented over HTTP by the
/// commands; faked in tests. It keeps no state about what happened: a
/// temporary or 401 outcome comes with its `Failure` (what the caller needs
/// to explain it), which the pass hands back with its report.
public protocol WriteSender {
    associatedtype Failure: Sendable
    /// Before the pass claims anything: nil when writes can be sent, else
    /// the temporary or 401 outcome that stops the pass (the server's
    /// protocol could not be learnt). Then `wireProtocol` is set.
    mutating func prepare() -> (WriteOutcome, Failure?)?
    /// The protocol this pass sends with ("v1", "v2"): a write sent once
    /// keeps it (its key's record on the server is of that protocol's request).
    var wireProtocol: String { get }
    /// How many writes one `send(batch:)` may take.
    var batchLimit: Int { get }
    mutating func send(_ item: OutboxItem) -> (WriteOutcome, Failure?)
    /// One outcome per item, in order, up to the first that stops the pass
    /// (a temporary failure or a 401); the items after it were not sent.
    mutating func send(batch items: [OutboxItem]) -> [(WriteOutcome, Failure?)]
}

extension WriteSender {
    public mutating func prepare() -> (WriteOutcome, Failure?)? { nil }
    public var wireProtocol: String { "v1" }
    public var batchLimit: Int { 1 }

    public mutating func send(batch items: [OutboxItem]) -> [(WriteOutcome, Failure?)] { sendEach(items) }

    /// One by one, stopping at the first temporary failure or 401.
    public mutating func sendEach(_ items: [OutboxItem]) -> [(WriteOutcome, Failure?)] {
        var results: [(WriteOutcome, Failure?)] = []
        for item in items {
            let result = send(item)
            results.append(result)
            if result.0.stopsThePass { break }
        }
        return results
    }
}

extension WriteOutcome {
    /// A temporary failure or a 401: nothing more is sent in this pass.
    public var stopsThePass: Bool {
        switch self {
        case .unauthorized, .temporary: return true
        case .applied, .conflict, .rejected: return false
        }
    }
}
