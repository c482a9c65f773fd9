import LibBase
import LibStore
@testable import LibSync
import Testing
import TestSupport

/// An author named in the query ranks its books as a title would, however
/// many tags they carry (issue 49: on a day of use `lib search austen` put
/// "Pride and Prejudice" 237th, behind books that only had the word as a
/// tag: bm25 divides by the length of the whole row, tags included).
@Suite struct AuthorMatchRankingTests {
    /// "Pride and Prejudice" with many tags, among 400 short books that
    /// hold "jane" and "austen" only as tags.
    static func library() throws -> (AccountStore, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        var members: [(String, String, String?)] = (1...400).map { n in
            ("books/w-\(n)", #"{"id":"w-\#(n)","title":"Letters","tags":["jane","austen"]}"#, "\"1\"")
        }
        let tags = #"["classic","romance","regency england","marriage plot","satire","novel of manners","comedy","family saga","society","courtship","first impressions","free indirect speech"]"#
        members.append(("books/b-1", #"{"id":"b-1","title":"Pride and Prejudice","author":"Jane Austen","tags":\#(tags)}"#, "\"1\""))
        try store.cache.saveCollection("books", members: members, at: UnixClock.now())
        return (store, dir)
    }

    @Test(arguments: ["austen", "jane austen", "Austen Jane"])
    func theAuthorsBookComesFirstWhateverItsTags(query: String) throws {
        let (store, dir) = try Self.library()
        defer { _ = dir }
        let found = try store.search.find(try #require(SearchQuery(query)), limit: 10)
        let rank = found.books.firstIndex { $0.path == "books/b-1" }.map { $0 + 1 }
        #expect(rank == 1, "\(query): Pride and Prejudice ranks \(rank.map(String.init) ?? "nowhere in the first 10") of \(found.total)")
    }
}
