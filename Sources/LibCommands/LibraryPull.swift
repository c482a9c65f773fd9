import LibBase
import LibClient
import LibNet
import LibSync

/// Makes the account's offline copy of a collection complete and current,
/// for `lib pull` and `lib get books`: the first time (or after the server
/// said 410) by taking the feed's cursor for "now" and listing every page,
/// then by reading only the change feed from that cursor, so that a pull's
/// cost grows with what changed, not with the library. Each page is stored
/// with the cursor after it in one transaction (LibraryMirror); the outbox
/// is never touched, so unsent writes stay on top.
struct LibraryPull {
    struct Outcome: Equatable {
        /// Whether every page was listed (first pull, 410, or a server without a feed).
        var listed = false
        /// Books stored or refreshed, and books forgotten, from the feed or the listing.
        var updated = 0
        var deleted = 0
        /// Requests sent.
        var requests = 0
    }

    let store: AccountStore
    let api: ServerAPI
    let rules: BookRules
    let collection: ResourcePath
    let explain: (TransportFailure) -> CommandFailure
    let now: () -> UnixSeconds
    /// Told how many members a listing has so far, page by page, and how
    /// many there are in all when the server said.
    var progress: ((Int, Int?) -> Void)? = nil

    /// Pulls; nil when the server has no such collection (404).
    func run() throws -> Outcome? {
        let mirror = store.mirror(of: collection.description)
        let feed = ChangeFeedReader(ResourceFetcher(api: api, rules: rules, explain: explain))
        var outcome = Outcome()
        if let cursor = try mirror.cursor(), try follow(feed, from: cursor, into: mirror, &outcome) { return outcome }
        // Listed after the cursor was taken: what changes while the pages
        // come is in the feed after it.
        let cursor = try feed.now()
        outcome.requests += 1
        outcome.listed = true
        var pages = 0
        let fetcher = ResourceFetcher(api: api, rules: rules, explain: explain)
        guard let members = try fetcher.collection(collection, progress: { count, total in
            pages += 1
            progress?(count, total)
        }) else { return nil }
        outcome.requests += pages
        let before = Set(try store.cache.paths(withPrefix: collection.description + "/", limit: Int.max))
        try mirror.replace(with: members, cursor: cursor, at: now())
        outcome.updated += members.count
        outcome.deleted += before.subtracting(members.map(\.path)).count
        if let cursor, !(try follow(feed, from: cursor, into: mirror, &outcome)) {
            // Even the new cursor is gone (a server keeping deletions for
            // less than a listing takes): the listing stands, the next pull lists again.
            try mirror.forgetCursor()
        }
        return outcome
    }

    /// Reads the feed from `cursor` until it has nothing more; false when
    /// the server no longer has that cursor (410) or no feed at all.
    private func follow(_ feed: ChangeFeedReader, from start: String, into mirror: LibraryMirror,
                        _ outcome: inout Outcome) throws -> Bool {
        var cursor = start
        while true {
            let answer = try feed.changes(since: cursor)
            outcome.requests += 1
            guard case .page(let changes, let next, let more) = answer else { return false }
            let prefix = collection.description + "/"
            try mirror.apply(changes.map { LibraryMirror.Change(path: prefix + $0.id, body: $0.body, etag: $0.etag) },
                             cursor: next, at: now())
            outcome.updated += changes.filter { $0.body != nil }.count
            outcome.deleted += changes.filter { $0.body == nil }.count
            // A server that hands the same cursor back with a full page would keep lib here forever.
            guard more, next != cursor else { return true }
            cursor = next
        }
    }
}
