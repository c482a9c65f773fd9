import LibJSON

/// Writes of one path go one after the other: each after the first goes
/// against the version the server's answer to the one before it gave, not
/// the version the user saw. It is sent only if its intent does not clash
/// with what changed in between (someone else's change to a field it sets,
/// a document deleted under it); otherwise it waits for `lib resolve`, with
/// that version as the server's side. So no write ever undoes a change it
/// was not made against: not another user's, not a write set aside at an
/// earlier logout.
public enum Chain {
    /// A version of the document on the server: its body (nil: it does not exist) and ETag.
    public struct Version: Sendable, Equatable {
        public var body: String?
        public var etag: String?
    }

    public enum Next: Sendable, Equatable {
        /// Send it against the version (its new base and precondition).
        case send(OutboxItem)
        /// Its intent clashes with the version: a conflict, without a request.
        case clash
    }

    /// What becomes of `item` once the write before it left `version`.
    public static func next(_ item: OutboxItem, after version: Version) -> Next {
        if item.intent.clashes(base: item.base, target: version.object) { return .clash }
        return .send(item.rebased(onto: version.body, etag: version.etag))
    }
}

extension Chain.Version {
    /// The version a successful write left: the document the server
    /// answered with (or, without one, the document sent), or none after
    /// a delete.
    public init(after item: OutboxItem, document: String?, etag: String?) {
        if item.method == .delete {
            self.init(body: nil, etag: nil)
        } else {
            self.init(body: document ?? item.documentToSend.map { JSONValue.object($0).serialized() }, etag: etag)
        }
    }

    var object: JSONObject? { body.flatMap { try? JSONParser.parse($0) }?.objectValue }
}
