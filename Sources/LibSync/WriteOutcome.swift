/// What the server's answer (or its absence) means for one write.
public enum WriteOutcome: Sendable, Equatable {
    /// 2xx: applied (or replayed). The document the server returned, when any, and its ETag.
    case applied(document: String?, etag: String?)
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

/// Sends one outbox item to the server: `PUT`/`DELETE` with its
/// `Idempotency-Key` and its precondition. Implemented over HTTP by the
/// commands; faked in tests. It keeps no state about what happened: a
/// temporary or 401 outcome comes with its `Failure` (what the caller needs
/// to explain it), which the pass hands back with its report.
public protocol WriteSender {
    associatedtype Failure: Sendable
    mutating func send(_ item: OutboxItem) -> (WriteOutcome, Failure?)
}
