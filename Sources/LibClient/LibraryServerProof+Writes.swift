import LibBase
import LibJSON
import LibNet

/// The proofs of the answers to writes, under protocol v1 (one response a
/// write) and v2 (one result a write in a batch's answer): what they give is
/// a `WriteResult`, which `WriteAnswer` reads the same way for both.
extension LibraryServerProof {
    /// An answer that settles a write (2xx, 412, another 4xx): it carries the
    /// request's Idempotency-Key back, and a PUT's success is 200 or 201 with
    /// the book.
    public static func doubtAboutWrite(_ response: HTTPResponse, key: String, isPut: Bool, id: String,
                                       rules: BookRules) -> String? {
        guard response.headers["Idempotency-Key"] == key else {
            return "\(response.seen) without this write's Idempotency-Key"
        }
        guard (200...299).contains(response.status), isPut else { return nil }
        guard response.status == 200 || response.status == 201 else { return "\(response.seen) to a PUT" }
        return doubtAboutBook(response, id: id, rules: rules)
    }

    /// A v1 answer to `item`'s PUT or DELETE, other than the statuses that
    /// stand for the request's failure (401, 429, 5xx, 3xx): one that would
    /// settle the write (2xx, 412, another 4xx but 409) must pass
    /// `doubtAboutWrite`.
    public static func writeResult(_ response: HTTPResponse, to item: WriteItem, rules: BookRules) throws(Doubt) -> WriteResult {
        let status = response.status
        let settles = (200...299).contains(status) || ((400...499).contains(status) && ![401, 409, 429].contains(status))
        if settles, let doubt = doubtAboutWrite(response, key: item.key, isPut: !item.isDelete, id: item.id, rules: rules) {
            throw Doubt(doubt)
        }
        var result = WriteResult(status: status, retryAfter: response.retryAfter)
        switch status {
        case 200...299:
            result.etag = response.headers["ETag"]
            if !item.isDelete { result.document = String(decoding: response.body, as: UTF8.self) }
        case 412:
            let problem = response.json
            result.current = problem?["current"].flatMap { $0.isNull ? nil : $0.serialized() }
            result.currentETag = problem?["current_etag"]?.stringValue ?? response.headers["ETag"]
        case 400...499:
            result.detail = response.problemDetail
        default:
            break
        }
        return result
    }

    /// A 200 answer to a v2 batch of `items`: `application/json` with one
    /// result per item, in order, each with its item's key and a status the
    /// server gives an item (2xx, 4xx, 5xx); an applied create or update
    /// with an ETag and a valid book with the item's id.
    public static func batchResults(_ response: HTTPResponse, to items: [WriteItem],
                                    rules: BookRules) throws(Doubt) -> [WriteResult] {
        guard response.mediaType == MediaType.json, let results = response.json?["results"]?.arrayValue else {
            throw Doubt(response.seen + " where a batch's results were expected")
        }
        guard results.count == items.count else { throw Doubt("\(results.count) results to a batch of \(items.count) writes") }
        var proven: [WriteResult] = []
        proven.reserveCapacity(items.count)
        for (item, result) in zip(items, results) {
            guard result["key"]?.stringValue == item.key else { throw Doubt("a batch's results without their writes' keys") }
            proven.append(try batchResult(result, to: item, rules: rules))
        }
        return proven
    }

    /// One result of a batch, its key already matched.
    private static func batchResult(_ result: JSONValue, to item: WriteItem, rules: BookRules) throws(Doubt) -> WriteResult {
        guard let number = result["status"]?.integerValue else { throw Doubt("a result without a status") }
        let status = Int(clamping: number)
        switch status {
        case 200...299:
            // A delete's result carries nothing lib keeps.
            if item.isDelete { return WriteResult(status: status) }
            guard status == 200 || status == 201, let etag = result["etag"]?.stringValue, !etag.isEmpty else {
                throw Doubt("a \(status) result without an ETag")
            }
            guard let document = result["document"] else { throw Doubt("a \(status) result without its book") }
            if let problem = ServedBook.problem(in: document, id: item.id, rules: rules) {
                throw Doubt("a \(status) result with \(problem)")
            }
            return WriteResult(status: status, document: document.serialized(), etag: etag,
                               merged: result["merged"].map(MergedChanges.init(json:)))
        case 400...599:
            return WriteResult(status: status, detail: result["problem"]?["detail"]?.stringValue,
                               current: result["current"].flatMap { $0.isNull ? nil : $0.serialized() },
                               currentETag: result["current_etag"]?.stringValue ?? result["etag"]?.stringValue)
        default:
            throw Doubt("a result with status \(status)")
        }
    }

    /// Whether a 404 or 405 proves the route is not there (a server without
    /// protocol v2): the library server says so with a problem document; a
    /// portal's or a proxy's page proves nothing.
    public static func provesRouteMissing(_ response: HTTPResponse) -> Bool {
        [404, 405].contains(response.status) && response.isJSON
    }
}
