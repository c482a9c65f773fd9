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
            switch try follow(from: cursor, &meter, &outcome) {
            case .current: return outcome
            case .outgrown: outcome.feedOutgrown = true
            case .gone: break
            }
            // The cursor is gone (410) or refused, or the feed carries more
            // than a listing: list again from the start, and forget the
            // cursor, so that a listing stopped half-way goes on next time.
            try mirror.forgetCursor()
            try mirror.abandonListing()
        }
        // Listed after the cursor was taken: what changes while the pages
        // come is in the feed after it. A listing a pull began and did not
        // finish goes on from its last stored page.
        let listing: LibraryMirror.Listing
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
        guard try list(listing, &meter, &outcome) else {
            try mirror.abandonListing()
            return nil
        }
        if outcome.yielded { return outcome }
        try mirror.finishListing(at: now())
        guard let cursor = listing.cursor else { return outcome }
        switch try follow(from: cursor, &meter, &outcome) {
        case .current:
            break
        case .gone:
            // Even the new cursor is gone (a server keeping deletions for
            // less than a listing takes): the listing stands, the next pull lists again.
            try mirror.forgetCursor()
        case .outgrown:
            // Listing again at once would let a feed that never ends keep lib
            // here; the next pull does, and the store holds no more meanwhile.
            throw PullStopped(why: "at a change feed that carried more than the whole library's listing right after it")
        }
        return outcome
    }

    /// How reading the feed ended.
    private enum FeedEnd {
        /// Nothing more: the mirror is current.
        case current
        /// The cursor is gone (410) or refused, or the server has no feed.
        case gone
        /// The feed carried more than a listing would (`FeedAllowance`);
        /// the page that would go past it was not stored.
        case outgrown
    }

    /// Lists page after page from `start` until the last, storing each as it
    /// comes; false when the server has no such collection. A `next` seen
    /// before, or more members than the listing's own total allows, stops it.
    /// Counted over the whole listing, whichever pulls stored its pages:
    /// more members than its total allows, or more bytes than
    /// `PullBudget.listingBytes` without an end, abandon it.
    private mutating func list(_ listing: LibraryMirror.Listing, _ meter: inout PullMeter, _ outcome: inout Outcome) throws -> Bool {
        var after = listing.after
        var seen: Set<String> = after.map { [$0] } ?? []
        var listed = listing.members, bytes = listing.bytes, total = listing.total
        defer { source.listingStopped() }
        while true {
            guard let page = try source.listingPage(after: after) else { return false }
            outcome.requests += 1
            try meter.spend(page.bytes)
            listed += page.members.count
            bytes += page.bytes
            total = page.total ?? total
            if let total, listed > PullBudget.listingAllows(total: total) {
                try mirror.abandonListing()
                throw PullStopped(why: "after \(listed) books: the server said the library has \(total)")
            }
            if bytes > budget.listingBytes {
                try mirror.abandonListing()
                throw PullStopped(why: "after listing \(PullMeter.megabytes(bytes)) without an end (a listing reads at most \(PullMeter.megabytes(budget.listingBytes)))")
            }
            outcome.deleted += try mirror.storeListed(page.members, after: after, next: page.next, fields: page.fields,
                                                      bytes: page.bytes, total: page.total, at: now())
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

    /// Reads the feed from `start` until it has nothing more, or until it
    /// carried more since the last listing than that listing did
    /// (`FeedAllowance`). A cursor the feed gave before ends it (a cycle),
    /// as the meter's budget does.
    private mutating func follow(from start: String, _ meter: inout PullMeter, _ outcome: inout Outcome) throws -> FeedEnd {
        var cursor = start
        var seen: Set<String> = [start]
        var fed = try mirror.feedAllowance.fed()
        let allowed = try mirror.feedAllowance.allowed()
        while true {
            let answer = try source.changes(since: cursor)
            outcome.requests += 1
            switch answer {
            case .gone, .unsupported:
                return .gone
            case .refused(let detail):
                outcome.refusedCursor = detail
                return .gone
            case .page(let changes, let next, let more, let bytes):
                try meter.spend(bytes)
                fed += bytes
                guard fed <= allowed else { return .outgrown }
                try mirror.apply(changes, cursor: next, bytes: bytes, at: now())
                outcome.updated += changes.filter { $0.body != nil }.count
                outcome.deleted += changes.filter { $0.body == nil }.count
                guard more, next != cursor else { return .current }
                if yields() {
                    outcome.yielded = true
                    return .current
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
    /// The change feed carried more than a listing would, so the pull listed again.
    public var feedOutgrown = false

    public init() {}
}
