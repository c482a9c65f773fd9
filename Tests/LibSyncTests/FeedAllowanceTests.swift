import LibSync
import Testing

/// Growth bounded across pulls, not per pull (issue 47): a change feed that
/// carries more than the library's listing did is replaced by a listing,
/// and a listing that spans pulls has a budget of its own.
extension LibraryPullTests {
    @Test func aFeedThatCarriesMoreThanTheListingDidIsReplacedByAListing() throws {
        var library = Self.library(3)
        _ = try pull(&library)
        library = ScriptedLibrary(books: library.books, log: library.log)
        // 20 changes of 100 KB: 2 MB of feed after a listing of 300 bytes.
        for n in 1...20 { library.write("b-1", "Edit \(n)") }
        library.feedChangeBytes = 100_000
        let outcome = try #require(try pull(&library))
        #expect(outcome.listed && outcome.feedOutgrown)
        #expect(library.requests == ["feed since 3", "now", "list after -", "list after b-2", "feed since 23"])
        #expect(try deviceBooks() == Self.serverBooks(library))
        #expect(try store.mirror(of: "books").cursor() == "23")

        // The listing starts a new allowance: a small change is read from the feed.
        library = ScriptedLibrary(books: library.books, log: library.log)
        library.write("b-2", "Small")
        let next = try #require(try pull(&library))
        #expect(!next.listed && !next.feedOutgrown && library.requests == ["feed since 23"])
    }

    @Test func aFeedThatNeverEndsGrowsTheStoreNoMoreThanAListingAllowsPullAfterPull() throws {
        var library = Self.library(3)
        _ = try pull(&library)
        library.feedInvents = true
        library.feedPageSize = 10
        library.feedChangeBytes = 10_000
        // 1 MB past a listing of 300 bytes: 104 invented books of 10 KB, and a page that crosses it.
        let allowed = 3 + (1 << 20) / 10_000
        for _ in 1...6 {
            #expect(throws: PullStopped(why: "at a change feed that carried more than the whole library's listing right after it")) {
                try pull(&library)
            }
            let held = try deviceBooks()
            #expect(held.count <= allowed, "\(held.count) books stored")
            #expect(held.filter { $0.key.hasPrefix("b-") } == Self.serverBooks(library))
        }
        // Each pull read about two allowances (before and after its listing), not its 128 MB budget.
        #expect(library.requests.filter { $0.hasPrefix("feed") }.count < 6 * 2 * 12)
    }

    @Test func aListingThatSpansPullsReadsAtMostEightPullsBudget() throws {
        var library = Self.library(1000)
        library.pageSize = 10
        // 1,000 bytes a page, 5 a pull (4 the first, which also takes the
        // cursor): the library needs 100 pages, a listing may read 40, which
        // the ninth pull passes.
        let budget = PullBudget(bytes: 5_000)
        var stops: [PullStopped] = []
        for _ in 1...9 {
            do { _ = try pull(&library, budget: budget) } catch let stop as PullStopped { stops.append(stop) }
            library = ScriptedLibrary(books: library.books, log: library.log, pageSize: 10)
        }
        #expect(stops.count == 9)
        let endless = stops.firstIndex { $0.why.hasPrefix("after listing 0.0 MB without an end (a listing reads at most 0.0 MB)") }
        #expect(endless == 8, "\(stops.map(\.why))")
        #expect(try store.mirror(of: "books").listing()?.bytes ?? 0 <= 5_000, "the abandoned listing starts over")
    }
}
