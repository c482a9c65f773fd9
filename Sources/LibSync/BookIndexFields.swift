/// What the search index holds of a book, as the store's own SQL reads it
/// out of the stored JSON (`LibraryIndexSchema.columnsFoldedByFunction`),
/// before letters are folded: title, author, and the tags joined by
/// spaces (nil: absent, or no tags). A listing's read-ahead thread, which
/// has each book parsed already, hands them along with the page, so that
/// the thread storing the pages binds them instead of reading them back
/// out of the JSON (`ListedIndexFields`).
public struct BookIndexFields: Sendable, Equatable {
    public let title: String?
    public let author: String?
    public let tags: String?

    public init(title: String?, author: String?, tags: String?) {
        self.title = title
        self.author = author
        self.tags = tags
    }
}
