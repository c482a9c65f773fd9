import LibBase
import LibHTTP
import LibNet

/// What the answer (or its absence) means for a write; the failures carry
/// what happened, for the user's explanation.
public enum WriteAnswer: Sendable {
    /// 2xx, proved: the document the server returned (for a PUT) and its
    /// ETag; under v2, the others' changes it was merged with, if any.
    case applied(document: String?, etag: String?, merged: MergedChanges? = nil)
    /// 412: the server's current document (nil: deleted) and ETag.
    case conflict(theirs: String?, etag: String?)
    /// Another 4xx: the server will not take it as it is.
    case rejected(problem: String)
    /// 401: the session is gone.
    case unauthorized(TransportFailure?)
    /// A transport failure, 409 (key in flight), 429, 5xx, or an answer that
    /// is not the library server's: try again later with the same key.
    case temporary(TransportFailure)
    /// A 422 to the whole batch from the server's mass-change guard: it
    /// applied nothing; the writes wait for `lib push --force`.
    case refusedMassChange(MassChangeProblem)

    /// A temporary failure, a 401 or the guard's refusal: nothing more is sent.
    public var stopsSending: Bool {
        switch self {
        case .unauthorized, .temporary, .refusedMassChange: return true
        case .applied, .conflict, .rejected: return false
        }
    }
}

/// One write's answer as the library server gave it, under either protocol:
/// a v1 response's status, headers and body, or one result of a v2 batch.
/// `LibraryServerProof` makes it from an answer it proved; `WriteAnswer`
/// says what it means.
public struct WriteResult: Sendable, Equatable {
    public var status: Int
    /// A create's or an update's 2xx: the book it left, and its ETag (a
    /// v1 delete's: the header's, if any).
    public var document: String?
    public var etag: String?
    /// Under v2, the others' changes the write was merged with.
    public var merged: MergedChanges?
    /// The problem's words, when the server gave some.
    public var detail: String?
    /// 412: the book as the server has it now (nil: deleted), and its ETag.
    public var current: String?
    public var currentETag: String?
    /// 409: when the key's first request should be over (v1's header).
    public var retryAfter: RetryAfter?

    public init(status: Int, document: String? = nil, etag: String? = nil, merged: MergedChanges? = nil,
                detail: String? = nil, current: String? = nil, currentETag: String? = nil, retryAfter: RetryAfter? = nil) {
        self.status = status
        self.document = document
        self.etag = etag
        self.merged = merged
        self.detail = detail
        self.current = current
        self.currentETag = currentETag
        self.retryAfter = retryAfter
    }
}

extension WriteAnswer {
    /// The one reading of a write's status, for v1's single writes and v2's
    /// batch items alike (DESIGN.md, "Writes: the outbox"): 2xx applied, 412
    /// conflict, 409 (the key is still in flight), 429 and 5xx temporary,
    /// another 4xx rejected. nil for a status the library server never gives
    /// a write (a 1xx, a 3xx, one outside 100-599): it proves nothing.
    ///
    /// A 401, 429, 5xx or 3xx to a whole request stands for the request's
    /// failure and is read before this (`LibraryWriter.requestFailure`).
    public init?(_ result: WriteResult, endpoint: ServerOrigin) {
        switch result.status {
        case 200...299:
            self = .applied(document: result.document, etag: result.etag, merged: result.merged)
        case 412:
            self = .conflict(theirs: result.current, etag: result.currentETag)
        case 409, 429, 500...599:
            // 409: the same key is still being processed (an earlier attempt
            // whose answer was lost): the same request later replays its result.
            let reason = result.status == 409 ? "Conflict" : result.detail ?? ""
            self = .temporary(TransportFailure(
                kind: .serverError(status: result.status, reason: reason, retryAfter: result.retryAfter), endpoint: endpoint))
        case 400...499:
            let detail = result.detail.flatMap { $0.isEmpty ? nil : $0 }
            self = .rejected(problem: detail ?? "the server answered \(result.status)")
        default:
            return nil
        }
    }
}
