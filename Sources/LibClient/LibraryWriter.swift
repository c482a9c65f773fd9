import LibBase
import LibJSON
import LibNet

/// What the answer (or its absence) means for a write; the failures carry
/// what happened, for the user's explanation.
public enum WriteAnswer: Sendable {
    /// 2xx, proved: the document the server returned (for a PUT) and its
    /// ETag; under v2, the others' changes it was merged with, if any.
    case applied(document: String?, etag: String?, merged: MergedChanges? = nil)
    /// 412: the server's current document (nil: deleted) and ETag.
    case conflict(theirs: String?, etag: String?)
    /// Another 4xx: the server will not take it as it is.
    case rejected(problem: String)
    /// 401: the session is gone.
    case unauthorized(TransportFailure?)
    /// A transport failure, 409 (key in flight), 429, 5xx, or an answer that
    /// is not the library server's: try again later with the same key.
    case temporary(TransportFailure)
}

/// Sends writes over one `ServerAPI` (one connection for a whole push), one
/// by one under protocol v1 or in batches under v2, and reads each answer as
/// DESIGN.md's "Writes: the outbox" says: 2xx applied, 412 conflict, 401
/// unauthorized, 409/429/5xx and transport failures temporary, other 4xx
/// rejected; an answer that would settle a write must prove it is the
/// library server's (`LibraryServerProof`).
public struct LibraryWriter {
    public let api: ServerAPI
    /// What a returned book is checked with: the account's book schema.
    public let rules: BookRules

    public init(api: ServerAPI, rules: BookRules = .builtIn) {
        self.api = api
        self.rules = rules
    }

    /// Sends `item` as a `PUT` of `document` (the intent applied to the
    /// version it goes against) or, for a delete, a `DELETE`; with its
    /// Idempotency-Key and precondition (`If-Match`, or `If-None-Match: *`
    /// for a create).
    public func send(_ item: WriteItem, document: JSONObject?) -> WriteAnswer {
        var headers = [("Idempotency-Key", item.key)]
        if item.isCreate {
            headers.append(("If-None-Match", "*"))
        } else if let ifMatch = item.ifMatch {
            headers.append(("If-Match", ifMatch))
        }
        let response: HTTPResponse
        do {
            if item.isDelete {
                response = try api.send("DELETE", "/v1/" + item.path, headers: headers)
            } else {
                guard let document else {
                    return .rejected(problem: "the change has no version of the document to apply to")
                }
                response = try api.send("PUT", "/v1/" + item.path, headers: headers, json: .object(document))
            }
        } catch {
            return .temporary(api.explainedThroughProxy(error))
        }
        return answer(response, to: item)
    }

    /// What one answer means for the write.
    public func answer(_ response: HTTPResponse, to item: WriteItem) -> WriteAnswer {
        let settles = (200...299).contains(response.status) || ((400...499).contains(response.status)
            && ![401, 409, 429].contains(response.status))
        if settles, let doubt = LibraryServerProof.doubtAboutWrite(response, key: item.key,
                                                                  isPut: !item.isDelete, id: item.id, rules: rules) {
            return .temporary(notTheServers(response, seen: doubt))
        }
        switch response.status {
        case 200...299:
            guard !item.isDelete else { return .applied(document: nil, etag: response.headers["ETag"]) }
            return .applied(document: String(decoding: response.body, as: UTF8.self), etag: response.headers["ETag"])
        case 412:
            let problem = response.json
            let current = problem?["current"]
            let theirs = current.flatMap { $0.isNull ? nil : $0.serialized() }
            let etag = problem?["current_etag"]?.stringValue ?? response.headers["ETag"]
            return .conflict(theirs: theirs, etag: etag)
        case 401:
            return .unauthorized(api.failure(for: response))
        case 409:
            // The same key is still being processed (an earlier attempt whose
            // answer was lost): the same request later replays its result.
            return .temporary(TransportFailure(
                kind: .serverError(status: 409, reason: "Conflict", retryAfter: response.retryAfter), endpoint: api.endpoint))
        case 429, 500...599, 300...399:
            guard let failure = api.failure(for: response) else { return .temporary(notTheServers(response)) }
            return .temporary(failure)
        case 400...499:
            return .rejected(problem: response.problemDetail)
        default:
            // A 304 to a write, a 1xx as the final answer, a status outside
            // 100-599: nothing the library server sends, so nothing that may
            // drop the write (found by the client-answer fuzz target, which
            // saw a write rejected on "HTTP/1.1 3").
            return .temporary(notTheServers(response))
        }
    }

    /// An answer that does not prove it is the library server's, as the
    /// failure that keeps the write pending; `seen`: what was wrong with it,
    /// when more than its status line.
    func notTheServers(_ response: HTTPResponse, seen: String? = nil) -> TransportFailure {
        TransportFailure(kind: .notFromLibraryServer(seen: seen ?? response.seen), endpoint: api.endpoint, proxy: response.proxy)
    }
}
