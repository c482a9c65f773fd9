import LibBase
import LibJSON
import LibNet

/// What a batch's answer (or its absence) means.
public enum BatchAnswer: Sendable {
    /// One answer per item, in order.
    case answered([WriteAnswer])
    /// Nothing of the batch is known to be settled: a transport failure, a
    /// 401, 5xx or 429, an answer that is not the library server's (every
    /// item is then temporary, or unauthorized), or a 413 (limits changed).
    case failed(WriteAnswer)
    /// The server has no `POST /v2/writes` (any more): speak v1 to it.
    case notSupported
}

/// Protocol v2's batches (`POST /v2/writes`), read as v1's answers are,
/// item by item: 2xx applied, 412 conflict, 409 temporary (the key is in
/// flight), other 4xx rejected. The answer proves it is the library
/// server's: one result per item, in order, each with its item's key; an
/// applied create or update with its ETag and a valid book.
extension LibraryWriter {
    /// The request body for `items`.
    public static func batchBody(_ items: [WriteItem]) -> JSONValue {
        ["writes": .array(items.map(\.json))]
    }

    public func send(batch items: [WriteItem]) -> BatchAnswer {
        let response: HTTPResponse
        do {
            response = try api.send("POST", "/v2/writes", json: Self.batchBody(items))
        } catch {
            return .failed(.temporary(api.explainedThroughProxy(error)))
        }
        return answer(response, toBatch: items)
    }

    /// What one answer means for the batch.
    public func answer(_ response: HTTPResponse, toBatch items: [WriteItem]) -> BatchAnswer {
        switch response.status {
        case 200:
            guard response.mediaType == MediaType.json, let results = response.json?["results"]?.arrayValue else {
                return batchNotTheServers(response, seen: response.seen + " where a batch's results were expected")
            }
            guard results.count == items.count else {
                return batchNotTheServers(response, seen: "\(results.count) results to a batch of \(items.count) writes")
            }
            var answers: [WriteAnswer] = []
            for (item, result) in zip(items, results) {
                guard result["key"]?.stringValue == item.key else {
                    return batchNotTheServers(response, seen: "a batch's results without their writes' keys")
                }
                switch itemAnswer(result, to: item) {
                case .success(let answer): answers.append(answer)
                case .failure(let doubt): return batchNotTheServers(response, seen: doubt.seen)
                }
            }
            return .answered(answers)
        case 401:
            return .failed(.unauthorized(api.failure(for: response)))
        case 404 where response.isJSON, 405 where response.isJSON:
            return .notSupported
        case 413:
            return .failed(.temporary(TransportFailure(
                kind: .serverError(status: 413, reason: "Content Too Large", retryAfter: nil), endpoint: api.endpoint)))
        case 429, 500...599, 300...399:
            guard let failure = api.failure(for: response) else { return batchNotTheServers(response) }
            return .failed(.temporary(failure))
        default:
            // A 400 to a batch lib made is lib's or an intermediary's fault,
            // never the writes': they stay pending, with the words.
            return batchNotTheServers(response, seen: response.seen + (response.isJSON ? ": " + response.problemDetail : ""))
        }
    }

    /// One item's result, or why it does not prove anything.
    private func itemAnswer(_ result: JSONValue, to item: WriteItem) -> Result<WriteAnswer, Doubt> {
        guard let status = result["status"]?.integerValue else { return .failure(Doubt("a result without a status")) }
        switch status {
        case 200...299:
            let etag = result["etag"]?.stringValue
            let merged = result["merged"].map(MergedChanges.init(json:))
            if item.isDelete { return .success(.applied(document: nil, etag: nil, merged: nil)) }
            guard status == 200 || status == 201, let etag, !etag.isEmpty else {
                return .failure(Doubt("a \(status) result without an ETag"))
            }
            guard let document = result["document"] else { return .failure(Doubt("a \(status) result without its book")) }
            if let problem = ServedBook.problem(in: document, id: item.id, rules: rules) {
                return .failure(Doubt("a \(status) result with \(problem)"))
            }
            return .success(.applied(document: document.serialized(), etag: etag, merged: merged))
        case 412:
            let current = result["current"]
            let theirs = current.flatMap { $0.isNull ? nil : $0.serialized() }
            return .success(.conflict(theirs: theirs, etag: result["current_etag"]?.stringValue ?? result["etag"]?.stringValue))
        case 409, 429, 500...599:
            let detail = result["problem"]?["detail"]?.stringValue ?? ""
            let reason = status == 409 ? "Conflict" : detail
            return .success(.temporary(TransportFailure(
                kind: .serverError(status: Int(status), reason: reason, retryAfter: nil), endpoint: api.endpoint)))
        case 400...499:
            let detail = result["problem"]?["detail"]?.stringValue
            return .success(.rejected(problem: detail.flatMap { $0.isEmpty ? nil : $0 } ?? "the server answered \(status)"))
        default:
            return .failure(Doubt("a result with status \(status)"))
        }
    }

    private struct Doubt: Error {
        let seen: String
        init(_ seen: String) { self.seen = seen }
    }

    private func batchNotTheServers(_ response: HTTPResponse, seen: String? = nil) -> BatchAnswer {
        .failed(.temporary(notTheServers(response, seen: seen)))
    }
}
