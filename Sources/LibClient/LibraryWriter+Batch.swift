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

/// Protocol v2's batches (`POST /v2/writes`): the answer is proven whole
/// (`LibraryServerProof.batchResults`) and each item read as a v1 answer is.
extension LibraryWriter {
    /// The request body for `items`.
    public static func batchBody(_ items: [WriteItem]) -> JSONValue {
        ["writes": .array(items.map(\.json))]
    }

    public func send(batch items: [WriteItem]) -> BatchAnswer {
        let response: HTTPResponse
        do {
            let headers = confirmsMassChange ? [(MassChangeGuard.confirmHeader, "1")] : []
            response = try api.send("POST", "/v2/writes", headers: headers, json: Self.batchBody(items))
        } catch {
            return .failed(.temporary(api.explainedThroughProxy(error)))
        }
        return answer(response, toBatch: items)
    }

    /// What one answer means for the batch.
    public func answer(_ response: HTTPResponse, toBatch items: [WriteItem]) -> BatchAnswer {
        if let failed = requestFailure(response) { return .failed(failed) }
        if let refusal = MassChangeProblem(response) { return .failed(.refusedMassChange(refusal)) }
        switch response.status {
        case 200:
            do {
                let results = try LibraryServerProof.batchResults(response, to: items, rules: rules)
                return .answered(results.map { WriteAnswer($0, endpoint: api.endpoint) ?? .temporary(notTheServers(response)) })
            } catch {
                return .failed(.temporary(notTheServers(response, seen: error.seen)))
            }
        case 404 where LibraryServerProof.provesRouteMissing(response), 405 where LibraryServerProof.provesRouteMissing(response):
            return .notSupported
        case 413:
            return .failed(.temporary(TransportFailure(
                kind: .serverError(status: 413, reason: "Content Too Large", retryAfter: nil), endpoint: api.endpoint)))
        default:
            // A 400 to a batch lib made is lib's or an intermediary's fault,
            // never the writes': they stay pending, with the words.
            let seen = response.seen + (response.isJSON ? ": " + response.problemDetail : "")
            return .failed(.temporary(notTheServers(response, seen: seen)))
        }
    }
}
