import LibJSON
import LibBase

/// One write waiting in the outbox: what the user did (its intent), the
/// version it goes against, and everything needed to send it exactly once
/// and to explain or resolve it later.
public struct OutboxItem: Sendable, Equatable {
    public enum Method: String, Sendable { case put = "PUT", delete = "DELETE" }
    public enum Status: String, Sendable { case pending, conflict, rejected }

    public let seq: Int64
    public let path: String
    public let intent: WriteIntent
    /// The version the write was made against (as the user saw it), or, once
    /// a conflict was settled or the write before it succeeded, the server's
    /// version it now goes against: the base of a three-way view.
    public let baseBody: String?
    /// The server's ETag of that version.
    public let baseETag: String?
    /// The `If-Match` to send: the base ETag, or nil while an earlier write
    /// of the same path has not been answered (its answer gives the version).
    public let ifMatch: String?
    public let idempotencyKey: String
    public let status: Status
    /// Requests for it that may have reached the server (a connection was
    /// made and its bytes written) and got no answer that settled it.
    public let attempts: Int
    /// A push is sending it, or was when it died: until that push says
    /// otherwise, its request may have reached the server.
    public let claimed: Bool
    public let lastError: String?
    /// For a conflict: the server's current document (nil when it was deleted) and ETag.
    public let theirsBody: String?
    public let theirsETag: String?
    /// For a rejected write: the server's problem detail.
    public let problem: String?
    public let createdAt: UnixSeconds
    /// When it last changed: for a write that may be on the server, when
    /// the push that sent it recorded that.
    public let updatedAt: UnixSeconds
    /// The protocol its first claimed push sent it with ("v1", "v2"); nil: never claimed.
    public let sentWith: String?

    public var method: Method { intent.isDelete ? .delete : .put }
    /// A create: sent with `If-None-Match: *` instead of `If-Match`.
    public var createOnly: Bool { intent.isCreate }

    /// Kind of change, as `lib status` says it.
    public enum Kind: String, Sendable { case create, change, delete }

    public var kind: Kind {
        switch intent {
        case .create: return .create
        case .change: return .change
        case .delete: return .delete
        }
    }

    /// "Sent": its request may have reached the server and no answer said
    /// what became of it. Only the next push can tell, by replaying its key.
    public var mayBeOnServer: Bool { status == .pending && (attempts > 0 || claimed) }

    /// Whether a later edit may still merge into it: no request for it can
    /// have reached the server, so its key is still unknown there.
    public var isUnsent: Bool { status == .pending && attempts == 0 && !claimed }

    /// The version it goes against, parsed (nil: none, or not an object).
    public var base: JSONObject? { baseBody.flatMap { try? JSONParser.parse($0) }?.objectValue }
    /// The server's document a conflict holds, parsed.
    public var theirs: JSONObject? { theirsBody.flatMap { try? JSONParser.parse($0) }?.objectValue }

    /// What a PUT sends: the intent applied to the version it goes against.
    public var documentToSend: JSONObject? { intent.applied(to: base) }

    public init(seq: Int64, path: String, intent: WriteIntent, baseBody: String?, baseETag: String?, ifMatch: String?,
                idempotencyKey: String, status: Status = .pending, attempts: Int = 0, claimed: Bool = false,
                lastError: String? = nil, theirsBody: String? = nil, theirsETag: String? = nil, problem: String? = nil,
                createdAt: UnixSeconds = 0, updatedAt: UnixSeconds = 0, sentWith: String? = nil) {
        self.seq = seq
        self.path = path
        self.intent = intent
        self.baseBody = baseBody
        self.baseETag = baseETag
        self.ifMatch = ifMatch
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.attempts = attempts
        self.claimed = claimed
        self.lastError = lastError
        self.theirsBody = theirsBody
        self.theirsETag = theirsETag
        self.problem = problem
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sentWith = sentWith
    }

    /// The same write going against another version of the server's.
    public func rebased(onto body: String?, etag: String?) -> OutboxItem {
        OutboxItem(seq: seq, path: path, intent: intent, baseBody: body, baseETag: etag, ifMatch: etag,
                   idempotencyKey: idempotencyKey, status: status, attempts: attempts, claimed: claimed,
                   lastError: lastError, theirsBody: theirsBody, theirsETag: theirsETag, problem: problem,
                   createdAt: createdAt, updatedAt: updatedAt, sentWith: sentWith)
    }
}

/// An outbox row that cannot be read back: the store is damaged.
public struct UnreadableWrite: Error, CustomStringConvertible {
    public let seq: Int64
    public let path: String
    public var description: String {
        "The outbox is damaged: write \(seq) of \(path) cannot be read back"
    }
}
