import Dispatch
import LibSync
import Synchronization
import Testing
import TestSupport

/// `ListingPrefetch`: the next listing page is asked for while the last is
/// stored, and the pull sees the same requests, failures and budget stops,
/// in the same order, as without it.
@Suite struct ListingPrefetchTests {
    let pulls: LibraryPullTests

    init() throws {
        pulls = try LibraryPullTests()
    }

    @Test func theNextPageIsAskedForBeforeTheLastIsDoneBeingStored() throws {
        var library = LibraryPullTests.library(6)
        let asked = DispatchSemaphore(value: 0)
        library.listingAsked = { after in if after == "b-2" { asked.signal() } }
        var seenWhileStoring: [Bool] = []
        // Called after the first page is stored, before the pull asks for
        // the second: without reading ahead, nobody has asked for it yet.
        let outcome = try pulls.prefetchingPull(&library, progress: { listed, _ in
            if listed == 2 { seenWhileStoring.append(asked.wait(timeout: .now() + 30) == .success) }
        })
        #expect(seenWhileStoring == [true])
        #expect(outcome?.listed == true)
        #expect(library.requests == ["now", "list after -", "list after b-2", "list after b-4", "feed since 6"],
                "each page once, in order")
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
        #expect(try pulls.store.mirror(of: "books").listing() == nil)
    }

    @Test func aFailedPageComesAfterThePagesBeforeItAreStored() throws {
        var library = LibraryPullTests.library(6)
        library.foreignPages = [1]
        #expect(throws: ScriptedLibrary.Failure(what: "a portal's page")) { try pulls.prefetchingPull(&library) }
        #expect(try pulls.deviceBooks() == ["b-1": "Title 1", "b-2": "Title 2"])
        #expect(try pulls.store.mirror(of: "books").listing() == LibraryMirror.Listing(cursor: "6", after: "b-2"))
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pulls.prefetchingPull(&again)
        #expect(again.requests == ["list after b-2", "list after b-4", "feed since 6"])
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
    }

    @Test func theBudgetStopsAtThePageItWouldHaveStoppedAtAndNothingIsLeftInFlight() throws {
        var library = LibraryPullTests.library(10)
        #expect(throws: PullStopped.self) { try pulls.prefetchingPull(&library, budget: PullBudget(bytes: 450)) }
        #expect(try pulls.deviceBooks().count == 4, "two pages of 200 bytes fit in 450; the third is read but not stored")
        // The fourth was asked for while the third was checked, and waited for.
        #expect(library.requests == ["now", "list after -", "list after b-2", "list after b-4", "list after b-6"])
    }

    @Test func aYieldWaitsForThePageInFlightAndTheNextPullGoesOnFromTheLastStored() throws {
        var library = LibraryPullTests.library(6)
        let outcome = try #require(try pulls.prefetchingPull(&library, yields: { true }))
        #expect(outcome.yielded)
        #expect(try pulls.deviceBooks().count == 2)
        #expect(library.requests == ["now", "list after -", "list after b-2"], "the page read ahead is dropped")
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pulls.prefetchingPull(&again)
        #expect(again.requests.first == "list after b-2")
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
    }

    @Test func writesDuringTheListingComeThroughTheFeed() throws {
        var library = LibraryPullTests.library(5)
        library.duringListing = { server in
            server.write("b-2", "Changed while listing")
            server.write("b-9", "Added while listing")
        }
        _ = try pulls.prefetchingPull(&library)
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
        #expect(try pulls.store.mirror(of: "books").cursor() == "7")
    }
}
