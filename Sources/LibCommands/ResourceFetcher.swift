import LibCLI
import LibJSON
import LibNet

/// Reads one resource from the server for `lib get`: a document with its
/// ETag (revalidated with `If-None-Match`), or a whole collection, page
/// after page. Answers that are not usable become failures with the user's
/// sentence and exit code; nothing here touches the cache.
struct ResourceFetcher {
    /// What the server said about a document.
    enum DocumentAnswer {
        case fresh(body: String, etag: String?)
        case notModified
        case notFound
    }

    /// One member of a collection, as the cache stores it: the document
    /// without the `etag` member the listing adds, and that ETag apart.
    typealias Member = (path: String, body: String, etag: String?)

    let api: ServerAPI
    let workspace: AccountWorkspace

    /// Members asked for per page: the server's maximum, so that a large
    /// collection takes few round trips.
    static let pageSize = 1000

    /// `GET /v1/books/b-7`, with `If-None-Match` when a copy is cached.
    func document(_ path: ResourcePath, cachedETag: String?) throws -> DocumentAnswer {
        var headers: [(String, String)] = []
        if let cachedETag { headers.append(("If-None-Match", cachedETag)) }
        let answer = try send(path.apiPath, headers: headers)
        switch answer.status {
        case 304: return .notModified
        case 404: return .notFound
        case 200:
            // Checked, then kept as the server sent it: what is shown offline
            // is byte for byte what was received.
            _ = try jsonObject(answer)
            return .fresh(body: String(decoding: answer.body, as: UTF8.self), etag: answer.headers["ETag"])
        default:
            throw CommandFailure("\(server) answered GET \(path.apiPath) with \(answer.status): \(answer.problemDetail)")
        }
    }

    /// `GET /v1/books?limit=N[&after=ID]` until `next` is null; nil on 404.
    func collection(_ path: ResourcePath) throws -> [Member]? {
        var members: [Member] = []
        var after: String?
        repeat {
            var target = path.apiPath + "?limit=\(Self.pageSize)"
            if let after { target += "&after=" + after }
            let answer = try send(target, headers: [])
            if answer.status == 404 { return nil }
            guard answer.status == 200 else {
                throw CommandFailure("\(server) answered GET \(target) with \(answer.status): \(answer.problemDetail)")
            }
            let page = try jsonObject(answer)
            guard let items = page["items"]?.arrayValue else {
                throw CommandFailure("\(server) answered GET \(target) without an items list")
            }
            for item in items {
                guard var document = item.objectValue, let id = document["id"]?.stringValue, ResourcePath.isValidID(id) else {
                    throw CommandFailure("\(server) answered GET \(target) with an item lib cannot read (no valid id)")
                }
                let etag = document["etag"]?.stringValue
                document["etag"] = nil
                members.append((path.collection + "/" + id, JSONValue.object(document).serialized(), etag))
            }
            let next = page["next"]?.stringValue
            // A server that repeats a page would otherwise keep lib here forever.
            if let next, next == after { throw CommandFailure("\(server) answered GET \(target) with the same next page again") }
            after = next
        } while after != nil
        return members
    }

    private var server: String { api.endpoint.hostAndPort }

    /// Sends a GET; transport failures and the statuses that mean "not now"
    /// or "not you" (5xx, 429, 401, 3xx) become the network layer's explanation.
    private func send(_ target: String, headers: [(String, String)]) throws -> HTTPResponse {
        do {
            let answer = try api.send("GET", target, headers: headers)
            if let failure = api.failure(for: answer) { throw failure }
            return answer
        } catch let failure as TransportFailure {
            throw workspace.explain(failure, pendingWrites: 0)
        }
    }

    /// The answer's body as a JSON object, or the reason it is not one.
    private func jsonObject(_ answer: HTTPResponse) throws -> JSONObject {
        guard answer.isJSON else {
            let type = answer.headers["Content-Type"] ?? "no content type"
            throw CommandFailure("\(server) answered with \(type), not JSON")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(answer.body) } catch {
            throw CommandFailure("\(server) answered with invalid JSON (\(error))")
        }
        guard let object = value.objectValue else {
            throw CommandFailure("\(server) answered with JSON \(value.typeName), not an object")
        }
        return object
    }
}
