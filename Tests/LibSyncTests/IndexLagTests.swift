import LibBase
import LibStore
import LibSync
import Testing
import TestSupport

/// A listing's pages are indexed for search some 10,000 books at a time
/// (IndexLag), and search is right at every point a pull may stop: the books
/// stored but not yet indexed are found from their cached copies.
@Suite struct IndexLagTests {
    let dir: TemporaryDirectory
    let store: AccountStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    static func page(_ range: ClosedRange<Int>, title: String = "Volume") -> [Cache.Copy] {
        range.map { i in
            let id = String(format: "g-%05d", i)
            return ("books/" + id, #"{"id":"\#(id)","title":"\#(title) \#(i)","author":"Someone"}"#, "\"1\"")
        }
    }

    func found(_ text: String) throws -> (paths: Set<String>, total: Int) {
        let found = try store.search.find(try #require(SearchQuery(text)), limit: 100_000)
        return (Set(found.books.map(\.path)), found.total)
    }

    func indexed() throws -> Int {
        Int(try store.database.scalar("SELECT count(*) FROM library_index")?.integer ?? -1)
    }

    @Test func pagesStoredButNotIndexedAreFoundAndTheStepIndexesThem() throws {
        let mirror = store.mirror(of: "books")
        try mirror.beginListing(cursor: "0")
        try mirror.storeListed(Self.page(1...1000), after: nil, next: "g-01000", at: 1)
        #expect(try indexed() == 0, "not indexed yet")
        // Stopped here (a kill): search finds them all the same.
        let early = try found("volume")
        #expect(early.paths.count == 1000 && early.total == 1000)
        #expect(try found("volume 7").paths.contains("books/g-00007"))
        for start in stride(from: 1001, through: 9001, by: 1000) {
            try mirror.storeListed(Self.page(start...(start + 999)), after: String(format: "g-%05d", start - 1),
                                   next: String(format: "g-%05d", start + 999), at: 1)
        }
        #expect(try indexed() == 10_000, "the tenth page reached the step")
        try mirror.storeListed(Self.page(10_001...10_500), after: "g-10000", next: nil, at: 1)
        #expect(try indexed() == 10_000)
        #expect(try found("volume").total == 10_500)
        try mirror.finishListing(at: 1)
        #expect(try indexed() == 10_500, "the end of the listing indexes the rest")
        #expect(try found("volume").total == 10_500)
    }

    @Test func aListingAgainReplacesWhatWasIndexedAndSearchNeverSeesBoth() throws {
        let mirror = store.mirror(of: "books")
        try mirror.beginListing(cursor: "0")
        try mirror.storeListed(Self.page(1...50), after: nil, next: nil, at: 1)
        try mirror.finishListing(at: 1)
        #expect(try found("volume").total == 50)
        try mirror.abandonListing()
        try mirror.beginListing(cursor: "1")
        try mirror.storeListed(Self.page(1...20, title: "Tome"), after: nil, next: "g-00020", at: 2)
        // g-00001…20 are retitled but their old entries are still in the index.
        let midway = try found("volume")
        #expect(midway.total == 30 && !midway.paths.contains("books/g-00001"), "\(midway.total)")
        #expect(try found("tome").total == 20)
        // Dropped half-way (the cursor went): what it stored is indexed before it goes.
        try mirror.abandonListing()
        #expect(try found("tome").total == 20 && found("volume").total == 30)
        #expect(try indexed() == 50)
    }
}
