import LibJSON
import LibNet

/// The proofs of what a server says of itself (`GET /v2/capabilities`) and
/// of the change feed's waiting answers.
extension LibraryServerProof {
    /// A 200 answer to `GET /v2/capabilities`: `application/json` listing
    /// the `protocols` the server speaks. Protocol v2 with its batch limits
    /// when it lists v2 and says where and how much to write (`writes`),
    /// else protocol v1 only.
    public static func capabilities(_ response: HTTPResponse) throws(Doubt) -> ServerCapabilities {
        guard response.mediaType == MediaType.json, let answer = response.json,
              let protocols = answer["protocols"]?.arrayValue?.compactMap(\.stringValue) else { throw Doubt(response.seen) }
        guard protocols.contains("v2"), let writes = answer["writes"],
              let items = writes["max_items"]?.integerValue, let bytes = writes["max_bytes"]?.integerValue,
              items > 0, bytes > 0, writes["path"]?.stringValue == "/v2/writes" else { return .v1Only }
        return ServerCapabilities(batchWrites: ServerCapabilities.BatchLimits(
            maxItems: min(Int(clamping: items), ServerCapabilities.largestBatch), maxBytes: Int(clamping: bytes)))
    }

    /// A 200 answer to `GET /v2/capabilities` read for the change feed's
    /// longest wait (`changes.max_wait`): JSON; nil when the server holds no
    /// feed request. Only a hint for the watcher, so nothing else is asked of it.
    public static func longestWait(_ response: HTTPResponse) throws(Doubt) -> Int? {
        guard let answer = response.json else { throw Doubt(response.seen) }
        guard let most = answer["changes"]?["max_wait"]?.integerValue, most > 0 else { return nil }
        return Int(clamping: most)
    }

    /// A 200 answer to a waiting feed request (`wait=S`): JSON with
    /// `items`; whether it holds any. Only a hint to pull: what the pull
    /// keeps is proven as a `feedPage`.
    public static func holdsChanges(_ response: HTTPResponse) throws(Doubt) -> Bool {
        guard let items = response.json?["items"]?.arrayValue else { throw Doubt(response.seen) }
        return !items.isEmpty
    }
}
