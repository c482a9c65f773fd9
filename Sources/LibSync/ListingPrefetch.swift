import LibBase
#if canImport(Glibc)
import Glibc
#endif

/// A `LibrarySource` that reads the listing ahead while the pull stores it,
/// so that a first pull takes about the longer of the download and the
/// store's writes, not their sum, and asks for each page as soon as the one
/// before it has come (with the server 50 ms away, one round trip a page, as
/// curl fetching the pages one after the other).
///
/// After the pull's first page, one thread of its own (joinable) asks for
/// page after page with the source, following each page's `next`, and puts
/// each page (or its failure) in a queue of at most `depth` pages; it waits
/// while the queue is full, so memory is the page being stored and `depth`
/// pages, and it stops after the last page, a failure, or when told to. The
/// pull's `listingPage` takes the pages from the queue in order, so that
/// failures and the pull's budget meet them as they were listed; the thread
/// reads at most `depth` pages beyond where the pull stops (the budget
/// counts what the pull takes, the queue bounds what was read beyond it).
/// Any other call (the cursor, the feed, a listing from elsewhere) and
/// `listingStopped` first stop the thread, join it, drop the pages it read
/// ahead and take the source back as it left it: no request is left running
/// behind the pull. `Base` is `Sendable` so that it may cross to the thread.
public struct ListingPrefetch<Base: LibrarySource & Sendable>: LibrarySource {
    public private(set) var base: Base
    /// Pages read ahead at most: with three, a store that stalls for a page
    /// (an index step) does not stall the download.
    public let depth: Int
    private var reader: ListingReader<Base>?

    /// `depth`: at least one page (a smaller number reads one ahead).
    public init(_ base: Base, depth: Int = 3) {
        self.base = base
        self.depth = max(1, depth)
    }

    public mutating func cursorForNow() throws -> (cursor: String?, bytes: Int) {
        listingStopped()
        return try base.cursorForNow()
    }

    public mutating func listingPage(after: String?) throws -> LibraryListingPage? {
        if let reader, reader.nextAfter == after {
            switch reader.take() {
            case .page(let page):
                if let next = page?.next {
                    self.reader?.nextAfter = next
                } else {
                    listingStopped()
                }
                return page
            case .failure(let error):
                listingStopped()
                throw error
            }
        }
        listingStopped()
        let page = try base.listingPage(after: after)
        if let next = page?.next {
            // No thread (EAGAIN): each page is asked for when it is wanted.
            reader = ListingReader(base, after: next, depth: depth)
        }
        return page
    }

    public mutating func changes(since cursor: String) throws -> LibraryFeedAnswer {
        listingStopped()
        return try base.changes(since: cursor)
    }

    /// Stops the reading ahead, if any, waits for the request in flight and
    /// drops the pages read ahead.
    public mutating func listingStopped() {
        guard let reader else { return }
        self.reader = nil
        base = reader.stop()
    }
}

/// The thread that reads a listing ahead, and what it hands over.
private struct ListingReader<Base: LibrarySource & Sendable> {
    /// The `after` of the next page the queue gives.
    var nextAfter: String
    private let thread: pthread_t
    private let queue: PageQueue<Base>

    /// Starts reading after `after`; nil when the system gives no thread.
    init?(_ source: Base, after: String, depth: Int) {
        let queue = PageQueue<Base>(depth: depth)
        let work: @Sendable () -> Void = {
            var source = source
            var after = after
            while queue.waitForRoom() {
                do {
                    let page = try source.listingPage(after: after)
                    queue.put(.page(page))
                    guard let next = page?.next else { break }
                    after = next
                } catch {
                    queue.put(.failure(error))
                    break
                }
            }
            queue.finish(source)
        }
        guard let thread = NativeThread.start(detached: false, work) else { return nil }
        self.nextAfter = after
        self.thread = thread
        self.queue = queue
    }

    /// The next page in order, waiting for it.
    func take() -> PageQueue<Base>.Entry { queue.take() }

    /// Tells the thread to stop, joins it, and returns the source as it left it.
    func stop() -> Base {
        queue.cancel()
        pthread_join(thread, nil)
        guard let source = queue.leftSource() else { preconditionFailure("a listing's reader ended without its source") }
        return source
    }
}

/// The pages read ahead, in order, at most `depth` of them, between the
/// reading thread and the pull, under a mutex with a condition variable.
private final class PageQueue<Base: Sendable>: @unchecked Sendable {
    // @unchecked: every var below is only touched under `mutex`.
    enum Entry: Sendable {
        case page(LibraryListingPage?)
        case failure(any Error)
    }

    private let depth: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var entries: [Entry] = []
    private var cancelled = false
    /// The reader's source once it has ended.
    private var source: Base?

    init(depth: Int) {
        self.depth = depth
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// The reader waits until fewer than `depth` pages are waiting; false: stop.
    func waitForRoom() -> Bool {
        locked {
            while !cancelled && entries.count >= depth { pthread_cond_wait(changed, mutex) }
            return !cancelled
        }
    }

    func put(_ entry: Entry) {
        locked {
            entries.append(entry)
            pthread_cond_broadcast(changed)
        }
    }

    /// The reader has ended (its last page, a failure, or cancelled).
    func finish(_ left: Base) {
        locked {
            source = left
            pthread_cond_broadcast(changed)
        }
    }

    /// The first page waiting, once there is one.
    func take() -> Entry {
        locked {
            while entries.isEmpty {
                if source != nil { preconditionFailure("a listing's reader ended before the page the pull asked for") }
                pthread_cond_wait(changed, mutex)
            }
            pthread_cond_broadcast(changed)
            return entries.removeFirst()
        }
    }

    /// Drops the pages waiting and tells the reader to stop.
    func cancel() {
        locked {
            cancelled = true
            entries.removeAll()
            pthread_cond_broadcast(changed)
        }
    }

    func leftSource() -> Base? { locked { source } }
}
