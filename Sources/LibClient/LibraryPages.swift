import LibJSON

/// One page of a collection's listing (`GET /v1/books?limit=N&after=ID`),
/// proven to be the library server's.
public struct ListingPage: Sendable {
    /// One member as the cache stores it: the document without the `etag`
    /// member the listing adds, and that ETag apart.
    public typealias Member = (path: String, body: String, etag: String?)

    public let members: [Member]
    /// The id to list after next; nil: the last page.
    public let next: String?
    /// How many members the server said the collection has.
    public let total: Int?
    /// The answer's size, for the pull's budget.
    public let bytes: Int
    /// What the search index holds of each member, in order: title, author
    /// and the tags joined by spaces, as the store would read them out of
    /// the JSON; nil when a book has one of another type (a server's schema
    /// may allow it): the store reads them itself.
    public let searchFields: [SearchFields]?

    public typealias SearchFields = (title: String?, author: String?, tags: String?)

    /// A book's search fields; nil when one is not text (tags: an array of text).
    static func searchFields(of book: JSONObject) -> SearchFields? {
        func text(_ value: JSONValue?) -> String?? {
            switch value {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return .some(text)
            default: return nil
            }
        }
        guard let title = text(book["title"]), let author = text(book["author"]) else { return nil }
        switch book["tags"] {
        case .array(let tags)?:
            var words: [String] = []
            for tag in tags {
                guard let word = tag.stringValue else { return nil }
                words.append(word)
            }
            return (title, author, words.isEmpty ? nil : words.joined(separator: " "))
        default:
            return (title, author, nil)
        }
    }
}

/// One page of the change feed (`GET /v1/changes?since=C`), proven to be
/// the library server's.
public struct FeedPage: Sendable, Equatable {
    /// One book that changed: its document as it is now (nil: deleted).
    public struct Change: Sendable, Equatable {
        public let id: String
        public let etag: String
        public let body: String?

        public init(id: String, etag: String, body: String?) {
            self.id = id
            self.etag = etag
            self.body = body
        }
    }

    public let changes: [Change]
    /// The cursor to ask from next.
    public let next: String
    /// Whether the server said more changes follow `next` at once (nil: a
    /// server from before `more`, whose pages end only at the limit).
    public let more: Bool?
    /// The answer's size, for the pull's budget.
    public let bytes: Int
}
