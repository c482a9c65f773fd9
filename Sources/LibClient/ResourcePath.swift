/// A resource path relative to the API root, as users type it: `books` (a
/// collection) or `books/b-7` (a document). Anything else — `../x`, an empty
/// path, spaces, a full URL — is refused before anything is read or sent.
public struct ResourcePath: Sendable, Hashable, CustomStringConvertible {
    public let collection: String
    public let id: String?

    public static let collections = ["books"]

    /// Why a text is not a resource path, as a sentence.
    public struct Invalid: Error, Equatable, Sendable {
        public let message: String
    }

    public init(parsing text: String) throws(Invalid) {
        func refuse(_ why: String) -> Invalid {
            Invalid(message: "'\(text)' is not a resource path: \(why). Use a path such as 'books' or 'books/b-7'")
        }
        if text.isEmpty { throw Invalid(message: "the resource path is empty. Use a path such as 'books' or 'books/b-7'") }
        if text.contains("://") { throw refuse("give the path on the server, not a URL (the server comes from the account)") }
        var trimmed = Substring(text)
        if trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        if trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.first, Self.collections.contains(String(first)) else {
            throw refuse("the collections are \(Self.collections.joined(separator: ", "))")
        }
        switch parts.count {
        case 1:
            collection = String(first)
            id = nil
        case 2:
            let id = String(parts[1])
            guard Self.isValidID(id) else {
                throw refuse("an id is 1 to 128 letters, digits, '-', '.', '_' or '~' (not '.' or '..')")
            }
            collection = String(first)
            self.id = id
        default:
            throw refuse("it has too many parts")
        }
    }

    public init(collection: String, id: String?) {
        self.collection = collection
        self.id = id
    }

    public var isDocument: Bool { id != nil }

    /// `books/b-7`: how it is shown, and the cache's key.
    public var description: String { id.map { "\(collection)/\($0)" } ?? collection }

    /// `/v1/books/b-7`: the request target on the server.
    public var apiPath: String { "/v1/" + description }

    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
        }
    }
}
