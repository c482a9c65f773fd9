import LibJSON

/// A document as this device knows it: the server's copy (cached, or, when
/// the cache has none, the version the newest write was made against) with
/// the intents of the writes still in the outbox applied in order. What
/// `get`, `edit`, `diff`, `status`, `search` and `resolve` all show and
/// start from.
public struct LocalVersion: Sendable, Equatable {
    public let path: String
    /// The server's copy as cached (any JSON; nil: not cached).
    public let cached: JSONValue?
    /// The outbox's writes of the path, oldest first (pending, in conflict or rejected).
    public let writes: [OutboxItem]
    /// The document with the writes applied; nil when it does not exist here
    /// (a write deletes it, or nothing is known of it).
    public let document: JSONObject?

    public init(path: String, cached: JSONValue?, writes: [OutboxItem]) {
        self.path = path
        self.cached = cached
        self.writes = writes
        var document = cached?.objectValue ?? writes.last(where: { $0.baseBody != nil })?.base
        for write in writes { document = write.intent.applied(to: document) }
        self.document = document
    }

    /// The document to show: the local one when writes are waiting, else the cached copy as it is.
    public var shown: JSONValue? { writes.isEmpty ? cached : document.map { .object($0) } }

    /// Whether the newest write deletes the document.
    public var deletes: Bool { writes.last?.intent.isDelete ?? false }

    /// Writes that wait for `lib resolve` (conflicts and rejected writes).
    public var needResolving: Int { writes.filter { $0.status != .pending }.count }

    /// Whether the newest write is a create no request has been sent for.
    public var isUnsentCreate: Bool { writes.last.map { $0.intent.isCreate && $0.isUnsent } ?? false }
}
