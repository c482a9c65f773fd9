/// Where a pull reads the server's library from, as `WriteSender` is where
/// a push sends: the HTTP reads in lib (`HTTPLibrarySource`), a script in
/// tests. A source proves what it returns is the library server's and
/// throws its own failures, which the pull passes on untouched.
public protocol LibrarySource {
    /// A cursor for "now", taken before a full listing (nil: the server has
    /// no change feed), with the answer's size in bytes.
    mutating func cursorForNow() throws -> (cursor: String?, bytes: Int)
    /// One page of the listing after `after` (nil: from the start); nil when
    /// the server has no such collection.
    mutating func listingPage(after: String?) throws -> LibraryListingPage?
    /// The changes after `cursor`.
    mutating func changes(since cursor: String) throws -> LibraryFeedAnswer
    /// The pull asks for no more of the listing (its last page, a yield, a
    /// stop or a failure): a source that reads ahead (`ListingPrefetch`)
    /// ends what it began.
    mutating func listingStopped()
}

extension LibrarySource {
    public mutating func listingStopped() {}
}

/// One page of a listing, as the mirror stores it.
public struct LibraryListingPage: Sendable {
    public let members: [Cache.Copy]
    /// The id to list after next; nil: the last page.
    public let next: String?
    /// How many members the server said the collection has.
    public let total: Int?
    public let bytes: Int
    /// Each member's index fields, in order, when the source read them (nil: the store reads them).
    public let fields: [BookIndexFields]?

    public init(members: [Cache.Copy], next: String?, total: Int?, bytes: Int, fields: [BookIndexFields]? = nil) {
        self.members = members
        self.next = next
        self.total = total
        self.bytes = bytes
        self.fields = fields
    }
}

/// What the change feed answered after a cursor.
public enum LibraryFeedAnswer: Sendable, Equatable {
    /// Changes after the cursor, the cursor to ask from next, whether there
    /// may be more right away (a full page), and the answer's size.
    case page(changes: [LibraryMirror.Change], next: String, more: Bool, bytes: Int)
    /// The cursor is older than what the server keeps (410): list again.
    case gone
    /// A server without a change feed: list every time.
    case unsupported
    /// The server will not read from the cursor (400, its problem's detail):
    /// list again.
    case refused(String)
}
