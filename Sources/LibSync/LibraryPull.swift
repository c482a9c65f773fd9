import LibBase

/// Makes the account's offline copy of a collection complete and current,
/// for `lib pull` and `lib get books`: the first time (or after the server
/// said 410) by taking the feed's cursor for "now" and listing every page,
/// then by reading only the change feed from that cursor, so that a pull's
/// cost grows with what changed, not with the library. Each page is stored
/// with the place after it in one transaction (`LibraryMirror`), listing
/// pages as they come, so memory is a page and a stopped pull goes on where
/// it stopped; the outbox is never touched, so unsent writes stay on top.
/// Whatever the source answers, a pull ends within its `PullBudget`
/// (`PullStopped`); the source's own failures pass through.
public struct LibraryPull<Source: LibrarySource> {
    /// The same for every source (a prefetching one too).
    public typealias Outcome = LibraryPullOutcome

    let mirror: LibraryMirror
    /// Where the pages come from; after `run`, as the pull left it.
    public private(set) var source: Source
    /// Wall-clock seconds, for the dates stored with what was pulled.
    let now: () -> UnixSeconds
    /// Monotonic seconds, for the budget's time.
    let elapsed: () -> Double
    /// What the server's answers may cost this pull (bytes, seconds).
    public var budget = PullBudget()
    /// Told how many members a listing has so far, page by page, and how
    /// many there are in all when the server said.
    public var progress: ((Int, Int?) -> Void)? = nil
    /// Asked after each stored page: true ends the pull there, keeping what
    /// was stored (push --watch, when a write was saved meanwhile: the write
    /// goes first, and the pull goes on after it).
    public var yields: () -> Bool = { false }

    public init(mirror: LibraryMirror, source: Source, now: @escaping () -> UnixSeconds, elapsed: @escaping () -> Double) {
        self.mirror = mirror
        self.source = source
        self.now = now
        self.elapsed = elapsed
    }

    /// Pulls; nil when the server has no such collection.
    public mutating func run() throws -> Outcome? {
        var meter = PullMeter(budget, elapsed: elapsed)
        var outcome = Outcome()
        if let cursor = try mirror.cursor() {
            if try follow(from: cursor, &meter, &outcome) { return outcome }
            // The cursor is gone (410) or refused: list again from the start,
            // and forget it, so that a listing stopped half-way goes on next time.
            try mirror.forgetCursor()
            try mirror.abandonListing()
        }
        // Listed after the cursor was taken: what changes while the pages
        // come is in the feed after it. A listing a pull began and did not
        // finish goes on from its last stored page.
        var listing: LibraryMirror.Listing
        if let begun = try mirror.listing() {
            listing = begun
        } else {
            let now = try source.cursorForNow()
            outcome.requests += 1
            try meter.spend(now.bytes)
            try mirror.beginListing(cursor: now.cursor)
            listing = LibraryMirror.Listing(cursor: now.cursor, after: nil)
        }
        outcome.listed = true
        guard try list(from: listing.after, &meter, &outcome) else {
            try mirror.abandonListing()
            return nil
        }
        if outcome.yielded { return outcome }
        try mirror.finishListing(at: now())
        if let cursor = listing.cursor, !(try follow(from: cursor, &meter, &outcome)) {
            // Even the new cursor is gone (a server keeping deletions for
            // less than a listing takes): the listing stands, the next pull lists again.
            try mirror.forgetCursor()
        }
        return outcome
    }

    /// Lists page after page from `start` until the last, storing each as it
    /// comes; false when the server has no such collection. A `next` seen
    /// before, or more members than the listing's own total allows, stops it.
    private mutating func list(from start: String?, _ meter: inout PullMeter, _ outcome: inout Outcome) throws -> Bool {
        var after = start
        var seen: Set<String> = start.map { [$0] } ?? []
        var listed = 0
        defer { source.listingStopped() }
        while true {
            guard let page = try source.listingPage(after: after) else { return false }
            outcome.requests += 1
            try meter.spend(page.bytes)
            listed += page.members.count
            if let total = page.total, listed > PullBudget.listingAllows(total: total) {
                throw PullStopped(why: "after \(listed) books: the server said the library has \(total)")
            }
            outcome.deleted += try mirror.storeListed(page.members, after: after, next: page.next, fields: page.fields, at: now())
            outcome.updated += page.members.count
            progress?(listed, page.total)
            guard let next = page.next else { return true }
            if yields() {
                outcome.yielded = true
                return true
            }
            // A server that goes back to a page would otherwise keep lib here forever.
            guard seen.insert(next).inserted else { throw PullStopped(why: "at a page it had listed already (after \(next))") }
            after = next
        }
    }

    /// Reads the feed from `start` until it has nothing more; false when
    /// the server no longer has that cursor (410, or 400: refused), or no
    /// feed at all. A cursor the feed gave before ends it (a cycle), as the
    /// meter's budget does.
    private mutating func follow(from start: String, _ meter: inout PullMeter, _ outcome: inout Outcome) throws -> Bool {
        var cursor = start
        var seen: Set<String> = [start]
        while true {
            let answer = try source.changes(since: cursor)
            outcome.requests += 1
            switch answer {
            case .gone, .unsupported:
                return false
            case .refused(let detail):
                outcome.refusedCursor = detail
                return false
            case .page(let changes, let next, let more, let bytes):
                try meter.spend(bytes)
                try mirror.apply(changes, cursor: next, at: now())
                outcome.updated += changes.filter { $0.body != nil }.count
                outcome.deleted += changes.filter { $0.body == nil }.count
                guard more, next != cursor else { return true }
                if yields() {
                    outcome.yielded = true
                    return true
                }
                guard seen.insert(next).inserted else { throw PullStopped(why: "at a change-feed cursor it had given before") }
                cursor = next
            }
        }
    }
}

/// What a pull did (`LibraryPull.Outcome`).
public struct LibraryPullOutcome: Sendable, Equatable {
    /// Whether every page was listed (first pull, 410, or a server without a feed).
    public var listed = false
    /// Books stored or refreshed, and books forgotten, from the feed or the listing.
    public var updated = 0
    public var deleted = 0
    /// Requests sent.
    public var requests = 0
    /// Why the server refused the stored cursor (400), when it did: the
    /// pull listed again.
    public var refusedCursor: String? = nil
    /// The pull stopped early because `yields` said so; the next one goes on.
    public var yielded = false

    public init() {}
}
