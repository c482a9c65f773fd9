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

    @Test func threePagesAreReadAheadWhileTheFirstIsStoredAndNoMore() throws {
        var library = LibraryPullTests.library(10)
        let thirdAhead = DispatchSemaphore(value: 0), fourthAhead = DispatchSemaphore(value: 0)
        library.listingAsked = { after in
            if after == "b-6" { thirdAhead.signal() }
            if after == "b-8" { fourthAhead.signal() }
        }
        var seenWhileStoring: [DispatchTimeoutResult] = []
        // Called after the first page is stored, before the pull takes the
        // second: without reading ahead nobody has asked for pages 2 to 4
        // yet; with a queue of three, page 5 waits for the pull to take page 2
        // (a queue that is not bounded asks for it at once, well within the
        // second this waits for it).
        let outcome = try pulls.prefetchingPull(&library, progress: { listed, _ in
            guard listed == 2 else { return }
            seenWhileStoring.append(thirdAhead.wait(timeout: .now() + 30))
            seenWhileStoring.append(fourthAhead.wait(timeout: .now() + 1))
        })
        #expect(seenWhileStoring == [.success, .timedOut])
        #expect(outcome?.listed == true)
        #expect(library.requests == ["now", "list after -", "list after b-2", "list after b-4", "list after b-6", "list after b-8",
                                     "feed since 10"], "each page once, in order")
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
        #expect(try pulls.store.mirror(of: "books").listing() == nil)
    }

    @Test func aFailedPageComesAfterThePagesBeforeItAreStored() throws {
        var library = LibraryPullTests.library(6)
        library.foreignPages = [1]
        #expect(throws: ScriptedLibrary.Failure(what: "a portal's page")) { try pulls.prefetchingPull(&library) }
        #expect(try pulls.deviceBooks() == ["b-1": "Title 1", "b-2": "Title 2"])
        let listing = try #require(try pulls.store.mirror(of: "books").listing())
        #expect(listing.cursor == "6" && listing.after == "b-2" && listing.members == 2, "\(listing)")
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pulls.prefetchingPull(&again)
        #expect(again.requests == ["list after b-2", "list after b-4", "feed since 6"])
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
    }

    @Test func theBudgetStopsAtThePageItWouldHaveStoppedAtAndWhatWasReadAheadIsDropped() throws {
        var library = LibraryPullTests.library(20)
        let queueFull = DispatchSemaphore(value: 0)
        library.listingAsked = { after in if after == "b-8" { queueFull.signal() } }
        var full: [DispatchTimeoutResult] = []
        #expect(throws: PullStopped.self) {
            try pulls.prefetchingPull(&library, budget: PullBudget(bytes: 450), progress: { listed, _ in
                // Pages 3 to 5 read ahead before the pull takes page 3.
                if listed == 4 { full.append(queueFull.wait(timeout: .now() + 30)) }
            })
        }
        #expect(full == [.success])
        #expect(try pulls.deviceBooks().count == 4, "two pages of 200 bytes fit in 450; the third is read but not stored")
        // Page 6 may have been asked for between the pull taking page 3 and
        // stopping; nothing after it, and the reader was joined: its source,
        // with every request it made, is the one the pull gave back.
        let listed = ["now", "list after -", "list after b-2", "list after b-4", "list after b-6", "list after b-8", "list after b-10"]
        #expect(library.requests == Array(listed.prefix(6)) || library.requests == listed)
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pulls.prefetchingPull(&again)
        #expect(again.requests.prefix(2) == ["list after b-4", "list after b-6"], "the pages read ahead are asked for again")
    }

    @Test func aYieldDropsThePagesReadAheadAndTheNextPullGoesOnFromTheLastStored() throws {
        var library = LibraryPullTests.library(6)
        let restAhead = DispatchSemaphore(value: 0)
        library.listingAsked = { after in if after == "b-4" { restAhead.signal() } }
        var readAhead: [DispatchTimeoutResult] = []
        let outcome = try #require(try pulls.prefetchingPull(&library, yields: { true }, progress: { listed, _ in
            if listed == 2 { readAhead.append(restAhead.wait(timeout: .now() + 30)) }
        }))
        #expect(readAhead == [.success])
        #expect(outcome.yielded)
        #expect(try pulls.deviceBooks().count == 2, "the pages read ahead are not stored")
        #expect(library.requests == ["now", "list after -", "list after b-2", "list after b-4"])
        var again = ScriptedLibrary(books: library.books, log: library.log)
        _ = try pulls.prefetchingPull(&again)
        #expect(again.requests == ["list after b-2", "list after b-4", "feed since 6"])
        #expect(try pulls.deviceBooks() == LibraryPullTests.serverBooks(library))
    }

    @Test func aListingThatGoesBackIsStoppedWithItsReaderJoined() throws {
        var library = LibraryPullTests.library(10)
        library.cyclingListing = true
        #expect(throws: PullStopped.self) { try pulls.prefetchingPull(&library) }
        // The reader asks for the page the pull stopped at and at most three
        // queued behind it: it waits while three are queued, and is stopped.
        #expect((3...6).contains(library.requests.count))
        #expect(Set(library.requests.dropFirst(2)) == ["list after b-1"])
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
