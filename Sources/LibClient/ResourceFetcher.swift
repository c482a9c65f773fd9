import LibBase
import LibJSON
import LibNet

/// Reads one resource from the server for `lib get`: a document with its
/// ETag (revalidated with `If-None-Match`), or a whole collection, page
/// after page. Answers that are not usable become failures with the user's
/// sentence and exit code (`explain` words a transport failure for the
/// account); nothing here touches the cache.
///
/// Only what proves it is the library server's comes back: a document is
/// `application/json`, a valid book with the path's id and an ETag (it may
/// become the base of a later write); a 404 is the server's problem+json
/// (it makes lib forget its copy). Anything else (a portal's page, `{}`,
/// cut JSON) is "not from the library server", a temporary failure, and so
/// `lib get` shows the cached copy instead.
public struct ResourceFetcher {
    /// What the server said about a document.
    public enum DocumentAnswer {
        case fresh(body: String, etag: String?)
        case notModified
        case notFound
    }

    /// One member of a collection, as the cache stores it: the document
    /// without the `etag` member the listing adds, and that ETag apart.
    public typealias Member = (path: String, body: String, etag: String?)

    let api: ServerAPI
    /// What a served book is checked with: the account's book schema.
    let rules: BookRules
    /// The user's sentence and exit code for a failure.
    let explain: (TransportFailure) -> CommandFailure

    public init(api: ServerAPI, rules: BookRules = .builtIn, explain: @escaping (TransportFailure) -> CommandFailure) {
        self.api = api
        self.rules = rules
        self.explain = explain
    }

    /// Members asked for per page: the server's maximum, so that a large
    /// collection takes few round trips.
    public static let pageSize = 1000

    /// `GET /v1/books/b-7`, with `If-None-Match` when a copy is cached.
    public func document(_ path: ResourcePath, cachedETag: String?) throws -> DocumentAnswer {
        var headers: [(String, String)] = []
        if let cachedETag { headers.append(("If-None-Match", cachedETag)) }
        let answer = try send(path.apiPath, headers: headers)
        switch answer.status {
        case 304: return .notModified
        case 404 where answer.isProblemJSON: return .notFound
        case 200:
            // Checked, then kept as the server sent it: what is shown offline
            // is byte for byte what was received.
            if let doubt = LibraryServerProof.doubtAboutBook(answer, id: path.id ?? "", rules: rules) { throw notFromServer(doubt) }
            return .fresh(body: String(decoding: answer.body, as: UTF8.self), etag: answer.headers["ETag"])
        case 404:
            throw notFromServer(answer.seen)
        default:
            throw CommandFailure("\(server) answered GET \(path.apiPath) with \(answer.status): \(answer.problemDetail)")
        }
    }

    /// One page of a listing: its members, the id it listed after (nil: from
    /// the start), the id to list after next (nil: the last page), and how
    /// many members the server said the collection has.
    public struct ListingPage {
        public let members: [Member]
        public let after: String?
        public let next: String?
        public let total: Int?
    }

    /// `GET /v1/books?limit=N[&after=ID]` from `after` until `next` is null,
    /// handing each page to `store` as it comes (memory is one page, not the
    /// library); false on 404. A page larger than the answer limit is asked
    /// for again in halves. The peer cannot keep lib here: a `next` seen
    /// before, one longer than a cursor may be, more members than the
    /// listing's own total allows, and the meter's byte and time budget stop it.
    public func listing(_ path: ResourcePath, after start: String? = nil, meter: PullMeter,
                        store: (ListingPage) throws -> Void) throws -> Bool {
        var after = start
        var seen: Set<String> = start.map { [$0] } ?? []
        var listed = 0
        var pageSize = Self.pageSize
        while true {
            var target = path.apiPath + "?limit=\(pageSize)"
            if let after { target += "&after=" + ChangeFeedReader.queryEscaped(after) }
            let answer: HTTPResponse
            do {
                answer = try sendRaw(target, headers: [])
            } catch let failure as TransportFailure {
                if case .answerTooLarge = failure.kind, pageSize > 1 {
                    pageSize /= 2
                    continue
                }
                throw explain(failure)
            }
            try meter.spend(answer.body.count)
            if answer.status == 404 && answer.isProblemJSON { return false }
            guard answer.status == 200 else {
                if !answer.isProblemJSON { throw notFromServer(answer.seen) }
                throw CommandFailure("\(server) answered GET \(target) with \(answer.status): \(answer.problemDetail)")
            }
            guard answer.mediaType == "application/json" else { throw notFromServer(answer.seen + " where a list of books was expected") }
            guard let page = answer.json?.objectValue, let items = page["items"]?.arrayValue else {
                throw notFromServer("200 with " + (answer.json == nil ? "cut or invalid JSON" : "JSON that is not a list of books"))
            }
            var members: [Member] = []
            members.reserveCapacity(items.count)
            for item in items {
                guard var document = item.objectValue, let id = document["id"]?.stringValue, ResourcePath.isValidID(id),
                      let etag = document["etag"]?.stringValue, !etag.isEmpty
                else {
                    throw notFromServer("a list with an item that is not a book with an ETag")
                }
                document["etag"] = nil
                let book = JSONValue.object(document)
                if let problem = ServedBook.problem(in: book, id: id, rules: rules) { throw notFromServer("a list with \(problem)") }
                members.append((path.collection + "/" + id, book.serialized(), etag))
            }
            let total = page["total"]?.integerValue.flatMap { $0 >= 0 ? Int(clamping: $0) : nil }
            let next = page["next"]?.stringValue
            if let next, next.utf8.count > PullBudget.maxCursorBytes || !ResourcePath.isValidID(next) {
                throw notFromServer("a listing whose next page is not a book id")
            }
            listed += members.count
            if let total, listed > PullBudget.listingAllows(total: total) {
                throw meter.stop("after \(listed) books: the server said the library has \(total)")
            }
            try store(ListingPage(members: members, after: after, next: next, total: total))
            guard let next else { return true }
            // A server that goes back to a page would otherwise keep lib here forever.
            guard seen.insert(next).inserted else { throw meter.stop("at a page it had listed already (after \(next))") }
            after = next
        }
    }

    private var server: String { api.endpoint.hostAndPort }

    /// Sends a GET; transport failures and the statuses that mean "not now"
    /// or "not you" (5xx, 429, 401, 3xx) become the network layer's explanation.
    private func send(_ target: String, headers: [(String, String)]) throws -> HTTPResponse {
        do {
            return try sendRaw(target, headers: headers)
        } catch let failure as TransportFailure {
            throw explain(failure)
        }
    }

    /// Sends a GET; transport failures and those statuses throw as `TransportFailure`.
    private func sendRaw(_ target: String, headers: [(String, String)]) throws -> HTTPResponse {
        let answer = try api.send("GET", target, headers: headers)
        if let failure = api.failure(for: answer) { throw failure }
        return answer
    }

    /// The failure for an answer that does not prove it is the library server's.
    private func notFromServer(_ seen: String) -> CommandFailure {
        explain(TransportFailure(kind: .notFromLibraryServer(seen: seen), endpoint: api.endpoint))
    }
}
