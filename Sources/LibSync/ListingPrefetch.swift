import LibBase
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `LibrarySource` that asks for the listing's next page while the pull
/// stores the last one, so that a first pull takes about the longer of the
/// download and the store's writes, not their sum (with the server 50 ms
/// away, a round trip a page). At most one page is in flight: memory is the
/// page being stored and the one coming.
///
/// The next page is asked for on a thread of its own (joinable, one per
/// page) with a copy of the source, as soon as a page says what comes next;
/// the pull's next `listingPage` waits for it and takes the source back as
/// that thread left it, with the page or its failure, so that failures and
/// the pull's budget meet the pages in the order they were listed. Nothing
/// is shared but the one page's result, handed over under a mutex and read
/// after the join; `Base` is `Sendable` so that the copy may cross. Any
/// other call (the cursor, the feed, a listing from elsewhere) and
/// `listingStopped` first wait for the page in flight and drop it: no
/// request is left running behind the pull.
public struct ListingPrefetch<Base: LibrarySource & Sendable>: LibrarySource {
    public private(set) var base: Base
    private var ahead: PageAhead<Base>?

    public init(_ base: Base) {
        self.base = base
    }

    public mutating func cursorForNow() throws -> (cursor: String?, bytes: Int) {
        listingStopped()
        return try base.cursorForNow()
    }

    public mutating func listingPage(after: String?) throws -> LibraryListingPage? {
        let page: LibraryListingPage?
        if let ahead, ahead.after == after {
            self.ahead = nil
            let (source, answer) = ahead.wait()
            base = source
            page = try answer.get()
        } else {
            listingStopped()
            page = try base.listingPage(after: after)
        }
        if let next = page?.next {
            // No thread (EAGAIN): the next page is asked for when it is wanted.
            ahead = PageAhead(base, after: next)
        }
        return page
    }

    public mutating func changes(since cursor: String) throws -> LibraryFeedAnswer {
        listingStopped()
        return try base.changes(since: cursor)
    }

    /// Waits for the page in flight, if any, and drops it.
    public mutating func listingStopped() {
        guard let ahead else { return }
        self.ahead = nil
        base = ahead.wait().source
    }
}

/// One listing page asked for on a thread of its own.
private struct PageAhead<Base: LibrarySource & Sendable> {
    typealias Answer = (source: Base, page: Result<LibraryListingPage?, any Error>)

    let after: String
    private let thread: pthread_t
    private let result: Handover<Answer>

    /// Starts asking; nil when the system gives no thread.
    init?(_ source: Base, after: String) {
        let result = Handover<Answer>()
        let work: @Sendable () -> Void = {
            var source = source
            let page = Result { try source.listingPage(after: after) }
            result.put((source, page))
        }
        guard let thread = NativeThread.start(detached: false, work) else { return nil }
        self.after = after
        self.thread = thread
        self.result = result
    }

    /// The source as the thread left it, and the page or its failure.
    func wait() -> Answer {
        pthread_join(thread, nil)
        guard let answer = result.take() else { preconditionFailure("a listing page's thread ended without an answer") }
        return answer
    }
}

/// A value put by one thread and taken by another after joining it.
private final class Handover<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func put(_ new: Value) { value.withLock { $0 = new } }

    func take() -> Value? { value.withLock { current in defer { current = nil }; return current } }
}
