import LibJSON
import LibBase

/// How a conflict or a rejected write is settled (`lib resolve`), as one
/// transaction on the outbox and the cache. Settling a conflict rebases the
/// write onto the server's version it was settled against: that version
/// becomes its base, and its intent becomes what turns that version into
/// the chosen result, so a later conflict shows only the user's own fields
/// as theirs. The writes made on top of it stay intents and go, in order,
/// against what it leaves (`Chain`).
public struct Settlement {
    let store: AccountStore
    /// The write that waits for a decision.
    public let write: OutboxItem
    /// The writes of the same path queued after it.
    public let later: [OutboxItem]

    public init(store: AccountStore, write: OutboxItem, later: [OutboxItem]) {
        self.store = store
        self.write = write
        self.later = later
    }

    public enum Outcome: Sendable, Equatable {
        /// The write will be sent at the next push.
        case requeued
        /// The server's version already is the result: the write is dropped;
        /// the writes made on top of it go on.
        case nothingToSend
        /// The same, but the first write made on top of it clashes with the
        /// server's version: it is now the conflict that waits.
        case nothingToSendNextInConflict
    }

    /// The server's version the conflict's answer gave.
    public var theirs: Chain.Version { Chain.Version(body: write.theirsBody, etag: write.theirsETag) }

    /// Settles the conflict on `result` (nil: the document deleted), over
    /// the server's version.
    @discardableResult
    public func settle(on result: JSONObject?, now: UnixSeconds) throws -> Outcome {
        let theirs = self.theirs
        if theirs.body != nil && theirs.etag == nil { throw SettlementError.noServerETag(path: write.path) }
        let theirsDocument = write.theirs
        let intent: WriteIntent?
        switch (result, theirsDocument) {
        case (nil, nil): intent = nil
        case (nil, _?): intent = .delete
        case (let result?, nil): intent = .create(result)
        case (let result?, let theirsDocument?):
            let changes = FieldChanges(from: theirsDocument, to: result)
            intent = changes.isEmpty ? nil : .change(changes)
        }
        return try store.database.write { db in
            let outbox = Outbox(db: db)
            try keepInCache(theirs, now: now)
            guard let intent else {
                try outbox.remove(seq: write.seq)
                if let next = later.first, try outbox.advance(next, onto: theirs, now: now) == .clash {
                    return .nothingToSendNextInConflict
                }
                return .nothingToSend
            }
            try outbox.requeue(seq: write.seq, intent: intent, baseBody: theirs.body, baseETag: theirs.etag, now: now)
            return .requeued
        }
    }

    /// A rejected write, replaced by `document` (what `--edit` saved), against the same version.
    public func replace(with document: JSONObject, now: UnixSeconds) throws {
        let intent: WriteIntent
        if write.intent.isCreate || write.base == nil {
            intent = .create(document)
        } else {
            intent = .change(FieldChanges(from: write.base ?? JSONObject(), to: document))
        }
        try store.outbox.requeue(seq: write.seq, intent: intent, baseBody: write.baseBody, baseETag: write.baseETag, now: now)
    }

    /// Drops the write and every write made on top of it; the cache takes the server's version.
    public func dropAll(now: UnixSeconds) throws {
        try store.database.write { db in
            for dropped in [write] + later { try Outbox(db: db).remove(seq: dropped.seq) }
            try keepInCache(theirs, now: now)
        }
    }

    private func keepInCache(_ version: Chain.Version, now: UnixSeconds) throws {
        guard write.status == .conflict else { return }
        if let body = version.body {
            try store.cache.save(write.path, body: body, etag: version.etag, at: now)
        } else {
            try store.cache.forget(write.path)
        }
    }
}

public enum SettlementError: Error, Equatable, CustomStringConvertible {
    /// The 412 carried the server's document but no ETag to send against.
    case noServerETag(path: String)

    public var description: String {
        switch self {
        case .noServerETag(let path):
            return "The server's answer for \(path) had no ETag: run `lib get \(path)` while online, then `lib resolve \(path) --edit`."
        }
    }
}
