import LibBase
import LibJSON
import LibNet

/// Reads resources from the server: one document with its ETag
/// (revalidated with `If-None-Match`), one page of a collection's listing,
/// one book's history. Only what `LibraryServerProof` proves is the
/// library server's comes back; anything else (a portal's page, `{}`, cut
/// JSON) is a `RequestFailure` saying what came instead, a temporary
/// failure, so that `lib get` shows the cached copy. Nothing here touches
/// the cache or words a failure.
public struct ResourceFetcher: Sendable {
    /// What the server said about a document.
    public enum DocumentAnswer: Sendable, Equatable {
        case fresh(body: String, etag: String?)
        case notModified
        case notFound
    }

    public let api: ServerAPI
    /// What a served book is checked with: the account's book schema.
    public let rules: BookRules

    public init(api: ServerAPI, rules: BookRules = .builtIn) {
        self.api = api
        self.rules = rules
    }

    /// Members asked for per page: the server's maximum, so that a large
    /// collection takes few round trips.
    public static let pageSize = 1000

    /// `GET /v1/books/b-7`, with `If-None-Match` when a copy is cached.
    public func document(_ path: ResourcePath, cachedETag: String?) throws(RequestFailure) -> DocumentAnswer {
        var headers: [(String, String)] = []
        if let cachedETag { headers.append(("If-None-Match", cachedETag)) }
        let answer = try api.read(path.apiPath, headers: headers)
        switch answer.status {
        case 304: return .notModified
        case 404 where answer.isProblemJSON: return .notFound
        case 200:
            // Checked, then kept as the server sent it: what is shown offline
            // is byte for byte what was received.
            if let doubt = LibraryServerProof.doubtAboutBook(answer, id: path.id ?? "", rules: rules) {
                throw .notFromServer(doubt, api, answer)
            }
            return .fresh(body: String(decoding: answer.body, as: UTF8.self), etag: answer.headers["ETag"])
        default:
            throw api.unexpected(answer, to: "GET \(path.apiPath)")
        }
    }

    /// `GET /v1/books?limit=N[&after=ID]`: one page of the listing after
    /// `after` (nil: from the start); nil when the server has no such
    /// collection (a 404 problem). A page larger than the answer limit is
    /// asked for again in halves.
    public func listingPage(_ path: ResourcePath, after: String?) throws(RequestFailure) -> ListingPage? {
        var pageSize = Self.pageSize
        while true {
            var target = path.apiPath + "?limit=\(pageSize)"
            if let after { target += "&after=" + ChangeFeedReader.queryEscaped(after) }
            let answer: HTTPResponse
            do {
                answer = try api.read(target)
            } catch .transport(let failure) where failure.kind.isAnswerTooLarge && pageSize > 1 {
                pageSize /= 2
                continue
            }
            if answer.status == 404 && answer.isProblemJSON { return nil }
            guard answer.status == 200 else { throw api.unexpected(answer, to: "GET \(target)") }
            do {
                return try LibraryServerProof.listingPage(answer, collection: path.collection, rules: rules)
            } catch {
                throw .notFromServer(error.seen, api, answer)
            }
        }
    }

    /// `GET /v1/books/b-7/history`: every version, oldest first; nil when
    /// the server never had the book (a 404 problem).
    public func history(_ path: ResourcePath) throws(RequestFailure) -> [BookVersion]? {
        let target = path.apiPath + "/history"
        let answer = try api.read(target)
        if answer.status == 404 && answer.isProblemJSON { return nil }
        guard answer.status == 200 else { throw api.unexpected(answer, to: "GET \(target)") }
        do {
            return try LibraryServerProof.history(answer)
        } catch {
            throw .notFromServer(error.seen, api, answer)
        }
    }
}

extension TransportFailure.Kind {
    var isAnswerTooLarge: Bool {
        if case .answerTooLarge = self { return true }
        return false
    }
}
