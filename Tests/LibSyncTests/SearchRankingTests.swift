import LibBase
import LibStore
@testable import LibSync
import Testing
import TestSupport

/// `lib search` puts the best match first (issue 37) over a generated
/// library of 20,000 books whose titles, authors and tags share words: an
/// exact title above longer ones, both words in one title above one word
/// in many, a name in a title above the same word as a tag, ties by title
/// and natural id, ø æ ß đ ł folded like é; and it says how many match
/// when the list is cut.
@Suite struct SearchRankingTests {
    static let words = ["dune", "children", "river", "night", "garden", "stone", "winter", "house"]
    static let names = ["Frank", "Ursula", "Octavia", "Isaac", "Ada", "Jules"]

    /// 20,000 generated books, and a few that each query must find first.
    static func library() throws -> (AccountStore, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        var members: [(String, String, String?)] = []
        for n in 1...20_000 {
            let a = words[n % words.count], b = words[(n / 8) % words.count]
            let title = "\(a.capitalized) of the \(b.capitalized) \(n)"
            let author = "\(names[n % names.count]) Author\(n % 100)"
            let tags = "[\"\(words[(n / 3) % words.count])\",\"\(names[(n / 5) % names.count].lowercased())\",\"generated\"]"
            members.append(("books/g-\(n)", #"{"id":"g-\#(n)","title":"\#(title)","author":"\#(author)","tags":\#(tags)}"#, "\"1\""))
        }
        members += [
            ("books/x-dune", #"{"id":"x-dune","title":"Dune","author":"Frank Herbert","tags":["sf"]}"#, "\"1\""),
            ("books/x-messiah", #"{"id":"x-messiah","title":"Dune Messiah","author":"Frank Herbert","tags":["sf","dune"]}"#, "\"1\""),
            ("books/x-children", #"{"id":"x-children","title":"Children of Dune","author":"Frank Herbert","tags":["sf"]}"#, "\"1\""),
            ("books/x-octavia", #"{"id":"x-octavia","title":"Octavia's Parable","author":"Someone Else","tags":["sf"]}"#, "\"1\""),
            ("books/x-soren", #"{"id":"x-soren","title":"Søren's Straße","author":"Æsa Łukasz","tags":["sf"]}"#, "\"1\""),
            ("books/x-soren-tag", #"{"id":"x-soren-tag","title":"Winter of the Dune","author":"Someone Else","tags":["søren","strasse","æsa"]}"#, "\"1\""),
        ]
        try store.cache.saveCollection("books", members: members, at: UnixClock.now())
        return (store, dir)
    }

    @Test func theBestMatchComesFirst() throws {
        let (store, dir) = try Self.library()
        defer { _ = dir }
        let cases: [(query: String, first: String)] = [
            ("dune", "books/x-dune"),                 // the exact title above "Dune Messiah" and 2,500 generated ones
            ("dune messiah", "books/x-messiah"),
            ("children dune", "books/x-children"),    // both words in its title, against many with one of them
            ("octavia", "books/x-octavia"),           // the name in a title, against the same word as a tag or an author
            ("soren", "books/x-soren"),               // ø folded like é, in the index and the query, title above tag
            ("SØREN STRASSE", "books/x-soren"),
            ("søren straße", "books/x-soren"),
            ("aesa lukasz", "books/x-soren"),         // æ and ł, in the author
        ]
        for (query, first) in cases {
            let found = try store.search.find(try #require(SearchQuery(query)), limit: 50)
            #expect(found.books.first?.path == first, "\(query): \(found.books.prefix(5).map(\.path))")
        }
    }

    @Test func theListSaysHowManyMatchWhenItIsCut() throws {
        let (store, dir) = try Self.library()
        defer { _ = dir }
        let found = try store.search.find(try #require(SearchQuery("winter")), limit: 50)
        #expect(found.books.count == 50 && found.total > 2_000 && found.truncated, "\(found.books.count) of \(found.total)")
        let all = try store.search.find(try #require(SearchQuery("messiah")), limit: 50)
        #expect(all.books.count == 1 && all.total == 1 && !all.truncated)
    }

    @Test func tiesGoByTitleThenByIdInNaturalOrder() {
        #expect(SearchRanking.naturallyBefore("g-999", "g-1103"))
        #expect(!SearchRanking.naturallyBefore("g-1103", "g-999"))
        #expect(SearchRanking.naturallyBefore("g-01", "g-2"))
        #expect(SearchRanking.naturallyBefore("a", "b") && SearchRanking.naturallyBefore("g-1", "g-1a"))
    }
}
