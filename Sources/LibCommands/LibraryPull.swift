import LibBase
import LibClient
import LibNet
import LibSync

/// Makes the account's offline copy of a collection complete and current,
/// for `lib pull` and `lib get books`: the first time (or after the server
/// said 410) by taking the feed's cursor for "now" and listing every page,
/// then by reading only the change feed from that cursor, so that a pull's
/// cost grows with what changed, not with the library. Each page is stored
/// with the place after it in one transaction (LibraryMirror), listing
/// pages as they come, so memory is a page and a stopped pull goes on where
/// it stopped; the outbox is never touched, so unsent writes stay on top.
/// Whatever the server answers, a pull ends within its `PullBudget`.
struct LibraryPull {
    struct Outcome: Equatable {
        /// Whether every page was listed (first pull, 410, or a server without a feed).
        var listed = false
        /// Books stored or refreshed, and books forgotten, from the feed or the listing.
        var updated = 0
        var deleted = 0
        /// Requests sent.
        var requests = 0
        /// Why the server refused the stored cursor (400), when it did: the
        /// pull listed again.
        var refusedCursor: String? = nil
        /// The pull stopped early because `yields` said so; the next one goes on.
        var yielded = false
    }

    /// Thrown from a page's store to end a listing that yields.
    private struct Yield: Error {}

    let store: AccountStore
    let api: ServerAPI
    let rules: BookRules
    let collection: ResourcePath
    let explain: (TransportFailure) -> CommandFailure
    let now: () -> UnixSeconds
    /// What the server's answers may cost this pull (bytes, seconds).
    var budget = PullBudget()
    /// Told how many members a listing has so far, page by page, and how
    /// many there are in all when the server said.
    var progress: ((Int, Int?) -> Void)? = nil
    /// Asked after each stored page: true ends the pull there, keeping what
    /// was stored (push --watch, when a write was saved meanwhile: the write
    /// goes first, and the pull goes on after it).
    var yields: () -> Bool = { false }

    /// Pulls; nil when the server has no such collection (404).
    func run() throws -> Outcome? {
        let mirror = store.mirror(of: collection.description)
        let meter = PullMeter(budget, server: api.endpoint.hostAndPort)
        let fetcher = ResourceFetcher(api: api, rules: rules, explain: explain)
        let feed = ChangeFeedReader(fetcher)
        var outcome = Outcome()
        if let cursor = try mirror.cursor() {
            if try follow(feed, from: cursor, into: mirror, meter: meter, &outcome) { return outcome }
            // The cursor is gone (410) or refused: list again from the start,
            // and forget it, so that a listing stopped half-way goes on next time.
            try mirror.forgetCursor()
            try mirror.abandonListing()
        }
        // Listed after the cursor was taken: what changes while the pages
        // come is in the feed after it. A listing a pull began and did not
        // finish goes on from its last stored page.
        var listing = try mirror.listing()
        if listing == nil {
            let cursor = try feed.now(meter: meter)
            outcome.requests += 1
            try mirror.beginListing(cursor: cursor)
            listing = LibraryMirror.Listing(cursor: cursor, after: nil)
        }
        outcome.listed = true
        var listed = 0
        let found: Bool
        do {
            found = try fetcher.listing(collection, after: listing?.after, meter: meter) { page in
                outcome.requests += 1
                outcome.deleted += try mirror.storeListed(page.members, after: page.after, next: page.next, at: now())
                outcome.updated += page.members.count
                listed += page.members.count
                progress?(listed, page.total)
                if page.next != nil, yields() { throw Yield() }
            }
        } catch is Yield {
            outcome.yielded = true
            return outcome
        }
        guard found else {
            try mirror.abandonListing()
            return nil
        }
        try mirror.finishListing(at: now())
        if let cursor = listing?.cursor, !(try follow(feed, from: cursor, into: mirror, meter: meter, &outcome)) {
            // Even the new cursor is gone (a server keeping deletions for
            // less than a listing takes): the listing stands, the next pull lists again.
            try mirror.forgetCursor()
        }
        return outcome
    }

    /// Reads the feed from `cursor` until it has nothing more; false when
    /// the server no longer has that cursor (410, or 400: refused), or no
    /// feed at all. A cursor the feed gave before ends it (a cycle), as the
    /// meter's budget does.
    private func follow(_ feed: ChangeFeedReader, from start: String, into mirror: LibraryMirror, meter: PullMeter,
                        _ outcome: inout Outcome) throws -> Bool {
        var cursor = start
        var seen: Set<String> = [start]
        while true {
            let answer = try feed.changes(since: cursor, meter: meter)
            outcome.requests += 1
            switch answer {
            case .gone, .unsupported:
                return false
            case .refused(let detail):
                outcome.refusedCursor = detail
                return false
            case .page(let changes, let next, let more):
                let prefix = collection.description + "/"
                try mirror.apply(changes.map { LibraryMirror.Change(path: prefix + $0.id, body: $0.body, etag: $0.etag) },
                                 cursor: next, at: now())
                outcome.updated += changes.filter { $0.body != nil }.count
                outcome.deleted += changes.filter { $0.body == nil }.count
                guard more, next != cursor else { return true }
                if yields() {
                    outcome.yielded = true
                    return true
                }
                guard seen.insert(next).inserted else {
                    throw meter.stop("at a change-feed cursor it had given before")
                }
                cursor = next
            }
        }
    }
}
