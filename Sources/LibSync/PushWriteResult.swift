import LibBase

/// What one push pass did with one write: for scripts (`lib push --json`).
public struct PushWriteResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The server applied it and gave this ETag (nil for a delete),
        /// merged with others' changes or not.
        case applied(etag: String?, merged: MergedChanges? = nil)
        /// 412: the server's copy changed; its ETag now.
        case conflict(theirsETag: String?)
        /// Another 4xx: the server's problem detail.
        case rejected(problem: String)
        /// Not done (kept pending): why.
        case failed(reason: String)
    }

    public let path: String
    public let method: OutboxItem.Method
    public let outcome: Outcome

    public init(_ item: OutboxItem, _ outcome: Outcome) {
        path = item.path
        method = item.method
        self.outcome = outcome
    }
}
