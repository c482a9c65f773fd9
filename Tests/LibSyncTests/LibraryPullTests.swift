import LibBase
import LibJSON
import LibSync
import Testing
import TestSupport

/// A library server in memory: books, a change feed with integer cursors,
/// listing pages of `pageSize`, and faults a test arranges.
struct ScriptedLibrary: LibrarySource, Sendable {
    struct Book: Equatable { var etag: String; var title: String }
    struct Failure: Error, Equatable { let what: String }

    var books: [String: Book] = [:]
    /// Every change in order: (id, book or nil for a deletion).
    var log: [(id: String, book: Book?)] = []
    var pageSize = 2
    var feedPageSize = 1000
    /// Cursors before this position are gone (410).
    var oldestCursor = 0
    /// The feed refuses every cursor (400: from another database).
    var refusesCursors: String? = nil
    var hasFeed = true
    var hasCollection = true
    /// Listing page numbers (from 0) answered by something that is not the library server.
    var foreignPages: Set<Int> = []
    /// Called after the cursor for "now" is taken: writes made while the listing runs.
    var duringListing: (@Sendable (inout ScriptedLibrary) -> Void)? = nil
    /// A feed that goes back to an earlier cursor instead of moving on.
    var cyclingFeed = false
    /// A listing whose `next` goes back to the first page.
    var cyclingListing = false
    /// The `total` a listing page says (nil: the true count).
    var claimedTotal: Int? = nil
    /// The bytes each change adds to a feed page's size.
    var feedChangeBytes = 50
    /// A feed that never ends: each page brings `feedPageSize` books the
    /// listing never has (`x-…`), always with more to come.
    var feedInvents = false

    /// Told of each listing page asked for, on the thread that asks.
    var listingAsked: (@Sendable (String?) -> Void)? = nil

    var requests: [String] = []
    var listingPages = 0

    mutating func write(_ id: String, _ title: String) {
        let book = Book(etag: "\"\(log.count + 1)\"", title: title)
        books[id] = book
        log.append((id, book))
    }

    mutating func delete(_ id: String) {
        books[id] = nil
        log.append((id, nil))
    }

    static func body(_ id: String, _ book: Book) -> String {
        JSONValue.object(["id": .string(id), "title": .string(book.title)]).serialized()
    }

    mutating func cursorForNow() throws -> (cursor: String?, bytes: Int) {
        requests.append("now")
        guard hasFeed else { return (nil, 10) }
        let cursor = String(log.count)
        duringListing?(&self)
        return (cursor, 10)
    }

    mutating func listingPage(after: String?) throws -> LibraryListingPage? {
        requests.append("list after \(after ?? "-")")
        listingAsked?(after)
        defer { listingPages += 1 }
        guard hasCollection else { return nil }
        if foreignPages.contains(listingPages) { throw Failure(what: "a portal's page") }
        let ids = books.keys.sorted { Self.natural($0) < Self.natural($1) }.filter { after == nil || Self.natural($0) > Self.natural(after!) }
        let page = Array(ids.prefix(pageSize))
        var next = page.count == pageSize && ids.count > pageSize ? page.last : nil
        if cyclingListing, next != nil { next = after ?? page.first }
        let members = page.map { id in (path: "books/" + id, body: Self.body(id, books[id]!), etag: Optional(books[id]!.etag)) }
        return LibraryListingPage(members: members, next: next, total: claimedTotal ?? books.count, bytes: 100 * page.count)
    }

    mutating func changes(since cursor: String) throws -> LibraryFeedAnswer {
        requests.append("feed since \(cursor)")
        guard hasFeed else { return .unsupported }
        if let refusesCursors { return .refused(refusesCursors) }
        if feedInvents, let start = Int(cursor) {
            let invented = (start..<start + feedPageSize).map { n in
                LibraryMirror.Change(path: "books/x-\(n)", body: Self.body("x-\(n)", Book(etag: "\"x\"", title: "Invented")), etag: "\"x\"")
            }
            return .page(changes: invented, next: String(start + feedPageSize), more: true, bytes: feedChangeBytes * feedPageSize)
        }
        guard let start = Int(cursor), start >= oldestCursor, start <= log.count else { return .gone }
        let end = min(log.count, start + feedPageSize)
        let changes = log[start..<end].map { change in
            LibraryMirror.Change(path: "books/" + change.id, body: change.book.map { Self.body(change.id, $0) },
                                 etag: change.book?.etag ?? "\"gone\"")
        }
        let next = cyclingFeed ? String((start + 1) % 2) : String(end)
        return .page(changes: changes, next: next, more: cyclingFeed || end < log.count, bytes: feedChangeBytes * changes.count + 20)
    }

    /// `b-9` before `b-10`.
    static func natural(_ id: String) -> Int { Int(id.dropFirst(2)) ?? 0 }
}

@Suite struct LibraryPullTests {
    let dir: TemporaryDirectory
    let store: AccountStore
    let clock = 1_000_000.0

    init() throws {
        dir = try TemporaryDirectory()
        store = try AccountStore(path: dir.file("store.sqlite"))
    }

    func pull(_ library: inout ScriptedLibrary, budget: PullBudget = PullBudget(),
              yields: @escaping () -> Bool = { false }) throws -> LibraryPull<ScriptedLibrary>.Outcome? {
        var pull = LibraryPull(mirror: store.mirror(of: "books"), source: library, now: { [clock] in clock }, elapsed: { 0 })
        pull.budget = budget
        pull.yields = yields
        defer { library = pull.source }
        return try pull.run()
    }

    /// The same pull through `ListingPrefetch`, as lib pulls.
    func prefetchingPull(_ library: inout ScriptedLibrary, budget: PullBudget = PullBudget(),
                         yields: @escaping () -> Bool = { false },
                         progress: ((Int, Int?) -> Void)? = nil) throws -> LibraryPull<ScriptedLibrary>.Outcome? {
        var pull = LibraryPull(mirror: store.mirror(of: "books"), source: ListingPrefetch(library), now: { [clock] in clock }, elapsed: { 0 })
        pull.budget = budget
        pull.yields = yields
        pull.progress = progress
        defer { library = pull.source.base }
        return try pull.run()
    }

    /// The device's books as (id, title), in id order.
    func deviceBooks() throws -> [String: String] {
        var found: [String: String] = [:]
        for path in try store.cache.paths(withPrefix: "books/", limit: 100_000) {
            let document = try #require(try store.cache.document(at: path))
            found[String(path.dropFirst("books/".count))] = document.json?["title"]?.stringValue
        }
        return found
    }

    static func serverBooks(_ library: ScriptedLibrary) -> [String: String] {
        library.books.mapValues(\.title)
    }

    static func library(_ count: Int) -> ScriptedLibrary {
        var library = ScriptedLibrary()
        for i in 1...count { library.write("b-\(i)", "Title \(i)") }
        return library
    }

    @Test func aFirstPullListsEveryPageThenReadsWhatChangedMeanwhileFromTheCursorTakenBefore() throws {
        var library = Self.library(5)
        library.duringListing = { server in
            server.write("b-2", "Changed while listing")
            server.write("b-9", "Added while listing")
        }
        let outcome = try #require(try pull(&library))
        #expect(outcome.listed)
        #expect(library.requests == ["now", "list after -", "list after b-2", "list after b-4", "feed since 5"])
        #expect(outcome.requests == 5)
        #expect(try deviceBooks() == Self.serverBooks(library))
        #expect(try store.mirror(of: "books").cursor() == "7")
        #expect(try store.mirror(of: "books").listing() == nil, "the listing is done")
    }

    @Test func aLaterPullReadsOnlyTheFeed() throws {
        var library = Self.library(4)
        _ = try pull(&library)
        library.write("b-1", "New title")
        library.delete("b-3")
        library = ScriptedLibrary(books: library.books, log: library.log)
        let outcome = try #require(try pull(&library))
        #expect(!outcome.listed)
        #expect(library.requests == ["feed since 4"])
        #expect(outcome.updated == 1 && outcome.deleted == 1)
        #expect(try deviceBooks() == Self.serverBooks(library))
    }

    @Test func aCursorTheServerNoLongerHasListsAgainAndForgetsWhatIsGone() throws {
        var library = Self.library(4)
        _ = try pull(&library)
        library.delete("b-2")
        library.write("b-5", "Five")
        library.oldestCursor = 5
        library = ScriptedLibrary(books: library.books, log: library.log, oldestCursor: 5)
        let outcome = try #require(try pull(&library))
        #expect(outcome.listed)
        #expect(library.requests.first == "feed since 4" && library.requests.contains("now"))
        #expect(outcome.deleted == 1, "b-2, which the listing no longer has")
        #expect(try deviceBooks() == Self.serverBooks(library))
    }

    @Test func aCursorFromAnotherDatabaseIsRefusedAndTheLibraryIsListedAgain() throws {
        var library = Self.library(3)
        _ = try pull(&library)
        // The server was restored from another database: it refuses the cursor, then lists.
        var restored = ScriptedLibrary()
        restored.write("b-1", "Restored")
        restored.refusesCursors = "the cursor is from another database"
        let outcome = try #require(try pull(&restored))
        #expect(outcome.listed)
        #expect(outcome.refusedCursor == "the cursor is from another database")
        #expect(try deviceBooks() == ["b-1": "Restored"])
        #expect(try store.mirror(of: "books").cursor() == nil, "a refused cursor is not kept: the next pull lists again")
    }

    @Test func aPageNotFromTheLibraryServerKeepsWhatWasStoredAndTheNextPullGoesOn() throws {
        var library = Self.library(6)
        library.foreignPages = [1]
        #expect(throws: ScriptedLibrary.Failure(what: "a portal's page")) { try pull(&library) }
        #expect(try deviceBooks() == ["b-1": "Title 1", "b-2": "Title 2"], "the first page is kept")
        let listing = try #require(try store.mirror(of: "books").listing())
        #expect(listing.cursor == "6" && listing.after == "b-2" && listing.members == 2 && listing.total == 6, "\(listing)")
        #expect(try store.mirror(of: "books").cursor() == nil, "not pulled until the listing ends")

        var again = ScriptedLibrary(books: library.books, log: library.log)
        let outcome = try #require(try pull(&again))
        #expect(again.requests == ["list after b-2", "list after b-4", "feed since 6"], "it goes on from the last stored page")
        #expect(outcome.listed)
        #expect(try deviceBooks() == Self.serverBooks(library))
    }

    @Test func aServerWithoutAFeedIsListedEveryTime() throws {
        var library = Self.library(3)
        library.hasFeed = false
        _ = try pull(&library)
        #expect(library.requests == ["now", "list after -", "list after b-2"])
        #expect(try store.mirror(of: "books").cursor() == nil)
        var again = ScriptedLibrary(books: library.books, log: library.log, hasFeed: false)
        let outcome = try #require(try pull(&again))
        #expect(outcome.listed)
        #expect(again.requests.contains("list after -"))
    }

    @Test func aServerWithoutTheCollectionIsNil() throws {
        var library = ScriptedLibrary()
        library.hasCollection = false
        #expect(try pull(&library) == nil)
        #expect(try store.mirror(of: "books").listing() == nil, "nothing half-listed is kept")
    }

    @Test func aFeedThatGoesBackToACursorItGaveStops() throws {
        var library = Self.library(2)
        _ = try pull(&library)
        var cycling = ScriptedLibrary(books: library.books, log: library.log, cyclingFeed: true)
        #expect(throws: PullStopped(why: "at a change-feed cursor it had given before")) { try pull(&cycling) }
    }

    @Test func aListingThatGoesBackToAPageStops() throws {
        var library = Self.library(6)
        library.cyclingListing = true
        #expect(throws: PullStopped.self) { try pull(&library) }
        #expect(library.requests.count < 10)
    }

    @Test func moreBooksThanTheListingSaidStops() throws {
        var library = Self.library(1200)
        library.pageSize = 500
        library.claimedTotal = 10
        // 1,200 books listed for a claimed 10: what is allowed is 10 + 1,000.
        #expect(throws: PullStopped(why: "after 1200 books: the server said the library has 10")) { try pull(&library) }
    }

    @Test func theByteBudgetStopsAPullAndKeepsWhatWasStored() throws {
        var library = Self.library(10)
        #expect(throws: PullStopped.self) { try pull(&library, budget: PullBudget(bytes: 450)) }
        #expect(try deviceBooks().count == 4, "two pages of 200 bytes fit in 450; the third is read but not stored")
    }

    @Test func aPullThatYieldsStopsAfterAPageAndTheNextGoesOn() throws {
        var library = Self.library(6)
        let outcome = try #require(try pull(&library, yields: { true }))
        #expect(outcome.yielded)
        #expect(try deviceBooks().count == 2)
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pull(&again)
        #expect(try deviceBooks() == Self.serverBooks(library))
    }

    @Test func theStoredDatesAreThePullsClock() throws {
        var library = Self.library(1)
        _ = try pull(&library)
        #expect(try store.cache.document(at: "books/b-1")?.fetchedAt == clock)
    }
}
