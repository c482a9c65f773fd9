
/// One write waiting in the outbox, with everything needed to send it
/// exactly once and to explain or resolve it later.
public struct OutboxItem: Sendable, Equatable {
    public enum Method: String, Sendable { case put = "PUT", delete = "DELETE" }
    public enum Status: String, Sendable { case pending, conflict, rejected }

    public let seq: Int64
    public let path: String
    public let method: Method
    /// A create: sent with `If-None-Match: *` instead of `If-Match`.
    public let createOnly: Bool
    public let body: String?
    public let baseBody: String?
    public let baseETag: String?
    /// The `If-Match` to send: the base ETag, or the ETag the server gave the
    /// previous write of this path.
    public let ifMatch: String?
    public let idempotencyKey: String
    public let status: Status
    /// Push passes that may have sent it (counted, durably, before a pass
    /// sends anything). Non-zero: the key may be known to the server, so no
    /// later edit merges into this write.
    public let attempts: Int
    public let lastError: String?
    /// For a conflict: the server's current document (nil when it was deleted) and ETag.
    public let theirsBody: String?
    public let theirsETag: String?
    /// For a rejected write: the server's problem detail.
    public let problem: String?
    public let createdAt: UnixSeconds
    /// When it last changed: for an attempted write still pending, when the
    /// push that may have sent it marked it or recorded its failure.
    public let updatedAt: UnixSeconds

    /// Kind of change, as `lib status` says it.
    public enum Kind: String, Sendable { case create, change, delete }

    public var kind: Kind {
        if method == .delete { return .delete }
        return createOnly || baseBody == nil ? .create : .change
    }

    /// Sent (or about to be) by a push whose answer never came: the server
    /// may have applied it. Only the next push can tell, by replaying its key.
    public var mayBeOnServer: Bool { status == .pending && attempts > 0 }
}
