import LibBase
import LibCLI
import LibClient
import LibSync

/// The pull's `LibrarySource` over protocol v1: the listing's pages and the
/// change feed through LibClient's readers, as `HTTPWriteSender` is the
/// push's `WriteSender`. Their `RequestFailure`s pass through the pull to
/// the command, which explains them (`AccountWorkspace.explained`).
struct HTTPLibrarySource: LibrarySource, Sendable {
    let collection: ResourcePath
    let reads: ResourceFetcher
    let feed: ChangeFeedReader

    init(_ collection: ResourcePath, api: ServerAPI, rules: BookRules) {
        self.collection = collection
        reads = ResourceFetcher(api: api, rules: rules)
        feed = ChangeFeedReader(api: api, rules: rules)
    }

    func cursorForNow() throws -> (cursor: String?, bytes: Int) {
        try feed.now()
    }

    func listingPage(after: String?) throws -> LibraryListingPage? {
        guard let page = try reads.listingPage(collection, after: after) else { return nil }
        let fields = page.searchFields?.map { BookIndexFields(title: $0.title, author: $0.author, tags: $0.tags) }
        return LibraryListingPage(members: page.members, next: page.next, total: page.total, bytes: page.bytes, fields: fields)
    }

    func changes(since cursor: String) throws -> LibraryFeedAnswer {
        switch try feed.changes(since: cursor) {
        case .page(let page, let more):
            let prefix = collection.description + "/"
            let changes = page.changes.map { LibraryMirror.Change(path: prefix + $0.id, body: $0.body, etag: $0.etag) }
            return .page(changes: changes, next: page.next, more: more, bytes: page.bytes)
        case .gone: return .gone
        case .unsupported: return .unsupported
        case .refused(let detail): return .refused(detail)
        }
    }
}

extension AccountStore {
    /// A pull of `collection` into this store from `source`, dated by
    /// `context`'s clocks, storing each page while the next one comes.
    func pull<Source: LibrarySource & Sendable>(_ collection: ResourcePath, from source: Source,
                                                _ context: CommandContext) -> LibraryPull<ListingPrefetch<Source>> {
        LibraryPull(mirror: mirror(of: collection.description), source: ListingPrefetch(source),
                    now: { context.now().secondsSince1970 }, elapsed: { MonotonicClock.now() })
    }
}
