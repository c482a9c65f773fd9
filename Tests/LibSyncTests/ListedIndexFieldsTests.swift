import LibBase
import LibJSON
import LibStore
@testable import LibSync
import Testing
import TestSupport

/// A listing's books are indexed from the fields the read-ahead read
/// (`ListedIndexFields`) when those cover the lag being indexed, and from
/// the stored JSON otherwise; both give the same index.
@Suite struct ListedIndexFieldsTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    static let authors = ["Søren Kierkegaard", "Ursula K. Le Guin", "Łukasz \"Ł\" Orbitowski"]

    /// Pages of 1,000 books from `first`; titles `title i`, some with tags, some folded letters.
    static func page(_ first: Int, count: Int = 1000, title: String = "Volume") -> [Cache.Copy] {
        (first..<(first + count)).map { i in
            let id = String(format: "g-%05d", i)
            var book: JSONObject = ["id": .string(id), "title": .string("\(title) \(i) Straße")]
            if i % 4 != 0 { book["author"] = .string(authors[i % 3]) }
            switch i % 5 {
            case 0: book["tags"] = .array([.string("sf"), .string("new\nwave"), .string("Æsop")])
            case 1: book["tags"] = .array([])
            case 2: book["tags"] = .array([.string("classic")])
            default: break
            }
            return ("books/" + id, JSONValue.object(book).serialized(), "\"1\"")
        }
    }

    /// What the read-ahead hands along: the fields of each book as parsed
    /// (`title`: another title instead, to see which the index took).
    static func fields(_ copies: [Cache.Copy], title: String? = nil) -> [BookIndexFields] {
        copies.map { copy in
            let book = (try? JSONParser.parse(copy.body))?.objectValue ?? [:]
            let tags = book["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return BookIndexFields(title: title.map { "\($0) \(copy.path)" } ?? book["title"]?.stringValue,
                                   author: book["author"]?.stringValue, tags: tags.isEmpty ? nil : tags.joined(separator: " "))
        }
    }

    /// 10,500 books over 11 pages (the step at 10,000, the rest at the end).
    static func list(into mirror: LibraryMirror, fields: ([Cache.Copy]) -> [BookIndexFields]?) throws {
        try mirror.beginListing(cursor: "0")
        var after: String? = nil
        for first in stride(from: 1, through: 10_001, by: 1000) {
            let page = Self.page(first, count: first == 10_001 ? 500 : 1000)
            let next = first == 10_001 ? nil : String(format: "g-%05d", first + 999)
            try mirror.storeListed(page, after: after, next: next, fields: fields(page), at: 1)
            after = next
        }
        try mirror.finishListing(at: 1)
    }

    func index(of store: AccountStore) throws -> [[String]] {
        try store.database.query("SELECT rowid, path, title, author, tags FROM library_index ORDER BY rowid").map { row in
            [String(row[0].integer ?? -1), row[1].text ?? "-", row[2].text ?? "-", row[3].text ?? "-",
             LetterFoldingFunctionTests.words(row[4].text).joined(separator: " ")]
        }
    }

    func found(_ text: String, in store: AccountStore) throws -> [String] {
        try store.search.find(try #require(SearchQuery(text)), limit: 100_000).books.map(\.path)
    }

    @Test func theFieldsIndexTheBooksAsTheStoredJSONDoes() throws {
        try Self.list(into: store.mirror(of: "books"), fields: { Self.fields($0) })
        let other = try AccountStore(path: dir.file("other.sqlite"))
        try Self.list(into: other.mirror(of: "books"), fields: { _ in nil })
        let fromFields = try index(of: store), fromJSON = try index(of: other)
        #expect(fromFields.count == 10_500)
        #expect(fromFields == fromJSON)
        for query in ["soren", "strasse 10", "aesop wave", "classic", "le guin", "lukasz"] {
            #expect(try found(query, in: store) == found(query, in: other), "\(query)")
        }
    }

    @Test func theStepAndTheEndIndexFromTheFieldsWhenTheyCoverTheLag() throws {
        try Self.list(into: store.mirror(of: "books"), fields: { Self.fields($0, title: "Fields") })
        #expect(try found("fields", in: store).count == 10_500)
        #expect(try found("volume", in: store).isEmpty)
    }

    @Test func anotherProcessWritingMeanwhileMakesTheRestIndexedFromTheStoredJSON() throws {
        let mirror = store.mirror(of: "books")
        try mirror.beginListing(cursor: "0")
        let first = Self.page(1, count: 3)
        try mirror.storeListed(first, after: nil, next: "g-00003", fields: Self.fields(first, title: "Fields"), at: 1)
        // `lib get` in another process caches a newer copy of a listed book.
        let other = try AccountStore(path: dir.file("store.sqlite"))
        try other.cache.save("books/g-00002", body: #"{"id":"g-00002","title":"Renamed meanwhile"}"#, etag: "\"2\"", at: 2)
        let second = Self.page(4, count: 3)
        try mirror.storeListed(second, after: "g-00003", next: nil, fields: Self.fields(second, title: "Fields"), at: 1)
        try mirror.finishListing(at: 1)
        #expect(try found("fields", in: store).isEmpty)
        #expect(try found("volume", in: store).count == 5)
        #expect(try found("renamed meanwhile", in: store) == ["books/g-00002"])
    }

    @Test func aLagAKilledPullLeftIsIndexedFromTheStoredJSON() throws {
        let killed = store.mirror(of: "books")
        try killed.beginListing(cursor: "0")
        let first = Self.page(1, count: 3)
        try killed.storeListed(first, after: nil, next: "g-00003", fields: Self.fields(first, title: "Fields"), at: 1)
        // The next pull's mirror knows nothing of the first's fields.
        let again = store.mirror(of: "books")
        let second = Self.page(4, count: 3)
        try again.storeListed(second, after: "g-00003", next: nil, fields: Self.fields(second, title: "Fields"), at: 1)
        try again.finishListing(at: 1)
        #expect(try found("fields", in: store).isEmpty)
        #expect(try found("volume", in: store).count == 6)
    }
}
