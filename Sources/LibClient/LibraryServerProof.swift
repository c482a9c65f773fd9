import LibJSON
import LibNet

/// The one check that an answer came from the library server, for every
/// kind of answer lib keeps or acts on (DESIGN.md: "a write is done only
/// when the library server proves it"; what `get` and `pull` cache must be
/// as sound). An answer that does not prove it (a captive portal's page,
/// `{}`, cut JSON, a proxy's 200) is a `Doubt`: words for "an answer that
/// did not come from the library server: …", a temporary failure; nothing
/// is cached, no write is settled.
public enum LibraryServerProof {
    /// What came instead of the library server's answer.
    public struct Doubt: Error, Sendable, Equatable {
        public let seen: String
        init(_ seen: String) { self.seen = seen }
    }

    /// The longest cursor lib keeps and sends back (the server's are a few
    /// dozen bytes): a feed's or a listing's `next` over it is refused.
    public static let maxCursorBytes = 4096

    /// A book in a 200 or 201: `application/json` with an ETag, and a valid
    /// book whose `id` is the path's.
    public static func doubtAboutBook(_ response: HTTPResponse, id: String, rules: BookRules) -> String? {
        guard response.mediaType == MediaType.json else { return "\(response.seen) where a book was expected" }
        guard let etag = response.headers["ETag"], !etag.isEmpty else { return "\(response.status) JSON without an ETag" }
        return ServedBook.problem(in: response.body, id: id, rules: rules).map { "\(response.status) with \($0)" }
    }

    /// A 200 page of a listing of `collection`: `items`, each a valid book
    /// with an id and an ETag; `next` a book id (or null); `total` when given.
    public static func listingPage(_ response: HTTPResponse, collection: String,
                                   rules: BookRules) throws(Doubt) -> ListingPage {
        let page = try jsonObject(response, expected: "a list of books")
        guard let items = page["items"]?.arrayValue else { throw Doubt("200 with JSON that is not a list of books") }
        var members: [ListingPage.Member] = []
        members.reserveCapacity(items.count)
        var searchFields: [ListingPage.SearchFields]? = []
        searchFields?.reserveCapacity(items.count)
        for item in items {
            guard var document = item.objectValue, let id = document["id"]?.stringValue, ResourcePath.isValidID(id),
                  let etag = document["etag"]?.stringValue, !etag.isEmpty
            else { throw Doubt("a list with an item that is not a book with an ETag") }
            document["etag"] = nil
            let book = JSONValue.object(document)
            if let problem = ServedBook.problem(in: book, id: id, rules: rules) { throw Doubt("a list with \(problem)") }
            members.append((collection + "/" + id, book.serialized(), etag))
            if searchFields != nil {
                if let fields = ListingPage.searchFields(of: document) { searchFields?.append(fields) } else { searchFields = nil }
            }
        }
        let next = page["next"]?.stringValue
        if let next, next.utf8.count > maxCursorBytes || !ResourcePath.isValidID(next) {
            throw Doubt("a listing whose next page is not a book id")
        }
        let total = page["total"]?.integerValue.flatMap { $0 >= 0 ? Int(clamping: $0) : nil }
        return ListingPage(members: members, next: next, total: total, bytes: response.body.count, searchFields: searchFields)
    }

    /// A 200 page of the change feed: `items`, each a valid book id with an
    /// ETag and the book (or null: deleted), and a `next` cursor lib can keep.
    public static func feedPage(_ response: HTTPResponse, rules: BookRules) throws(Doubt) -> FeedPage {
        let page = try jsonObject(response, expected: "a list of changes")
        guard let items = page["items"]?.arrayValue, let next = page["next"]?.stringValue, !next.isEmpty else {
            throw Doubt("200 with JSON that is not a list of changes")
        }
        guard next.utf8.count <= maxCursorBytes else {
            throw Doubt("a cursor of \(next.utf8.count) bytes, longer than the \(maxCursorBytes) bytes lib keeps")
        }
        // A server from before `more` says nothing: the reader counts the items.
        let more = page["more"]
        guard more == nil || more?.boolValue != nil else { throw Doubt("a list of changes whose 'more' is not true or false") }
        var changes: [FeedPage.Change] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard let id = item["id"]?.stringValue, ResourcePath.isValidID(id), let etag = item["etag"]?.stringValue,
                  !etag.isEmpty, let document = item["document"]
            else { throw Doubt("a list of changes with an item that is not a book's change") }
            if document.isNull {
                changes.append(FeedPage.Change(id: id, etag: etag, body: nil))
                continue
            }
            if let problem = ServedBook.problem(in: document, id: id, rules: rules) { throw Doubt("a change with \(problem)") }
            changes.append(FeedPage.Change(id: id, etag: etag, body: document.serialized()))
        }
        return FeedPage(changes: changes, next: next, more: more?.boolValue, bytes: response.body.count)
    }

    /// A 200 history of a book: `items`, each a version with its ETag,
    /// writer and time, and the book it left (or null: a deletion).
    public static func history(_ response: HTTPResponse) throws(Doubt) -> [BookVersion] {
        let answer = try jsonObject(response, expected: "a book's history")
        guard let items = answer["items"]?.arrayValue else { throw Doubt("\(response.seen) where a book's history was expected") }
        var versions: [BookVersion] = []
        versions.reserveCapacity(items.count)
        for item in items {
            guard let entry = item.objectValue, let version = entry["version"]?.integerValue,
                  let etag = entry["etag"]?.stringValue, let by = entry["updated_by"]?.stringValue,
                  let at = entry["at"]?.stringValue
            else { throw Doubt("a history with an entry that is not a version") }
            let document = entry["document"]?.objectValue
            if entry["document"] != .null && document == nil { throw Doubt("a history with a version that is not a book") }
            versions.append(BookVersion(version: version, etag: etag, updatedBy: by,
                                        updatedByName: entry["updated_by_name"]?.stringValue, at: at, document: document))
        }
        return versions
    }

    /// The body of an `application/json` answer, which must be a JSON object.
    private static func jsonObject(_ response: HTTPResponse, expected: String) throws(Doubt) -> JSONObject {
        guard response.mediaType == MediaType.json else { throw Doubt("\(response.seen) where \(expected) was expected") }
        guard let value = response.json else { throw Doubt("200 with cut or invalid JSON") }
        guard let object = value.objectValue else { throw Doubt("200 with JSON that is not \(expected)") }
        return object
    }
}
