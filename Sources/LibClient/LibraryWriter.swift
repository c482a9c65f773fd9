import LibBase
import LibJSON
import LibNet

/// Sends writes over one `ServerAPI` (one connection for a whole push), one
/// by one under protocol v1 or in batches under v2. Each write's answer is
/// proven (`LibraryServerProof`) and then read by the one classifier of
/// both protocols (`WriteAnswer.init(_:endpoint:)`).
public struct LibraryWriter {
    public let api: ServerAPI
    /// What a returned book is checked with: the account's book schema.
    public let rules: BookRules
    /// Tells the server, with each batch, that a mass change is meant
    /// (`lib push --force`: `Lib-Confirm-Mass-Change: 1`).
    public var confirmsMassChange = false

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
        if let failed = requestFailure(response) { return failed }
        do {
            let result = try LibraryServerProof.writeResult(response, to: item, rules: rules)
            // A 304 to a write, a 1xx as the final answer, a status outside
            // 100-599: nothing the library server sends, so nothing that may
            // drop the write (found by the client-answer fuzz target, which
            // saw a write rejected on "HTTP/1.1 3").
            return WriteAnswer(result, endpoint: api.endpoint) ?? .temporary(notTheServers(response))
        } catch {
            return .temporary(notTheServers(response, seen: error.seen))
        }
    }

    /// What a 401, 429, 5xx or 3xx stands for, under either protocol: the
    /// request failed (the session is gone, or not now) and no write of it
    /// is settled; nil for any other status.
    func requestFailure(_ response: HTTPResponse) -> WriteAnswer? {
        switch response.status {
        case 401: return .unauthorized(api.failure(for: response))
        case 429, 500...599, 300...399: return .temporary(api.failure(for: response) ?? notTheServers(response))
        default: return nil
        }
    }

    /// An answer that does not prove it is the library server's, as the
    /// failure that keeps the write pending; `seen`: what was wrong with it,
    /// when more than its status line.
    func notTheServers(_ response: HTTPResponse, seen: String? = nil) -> TransportFailure {
        TransportFailure(kind: .notFromLibraryServer(seen: seen ?? response.seen), endpoint: api.endpoint, proxy: response.proxy)
    }
}
