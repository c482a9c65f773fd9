import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// What an edit of one document starts from: the document as this device
/// knows it (its `LocalVersion`: the cached copy with the pending writes'
/// intents applied), and the cached copy and ETag under it. When the
/// device has never seen the document it is fetched first; without a token
/// or a server that answers, the edit cannot start.
struct EditBase {
    /// The document to change; nil when it does not exist (deleted on this device).
    var document: JSONObject?
    /// The server's version the change is made against: the cached copy.
    var cached: CachedDocument?
    /// Whether the newest local change is a create that was never sent.
    var pendingCreate: Bool

    static func load(_ path: ResourcePath, store: AccountStore, workspace: AccountWorkspace, fetchIfMissing: Bool) throws -> EditBase {
        let key = path.description
        let cached = try store.cache.document(at: key)
        let writes = try store.outbox.items(for: key)
        if !writes.isEmpty {
            let local = LocalVersion(path: key, cached: cached?.json, writes: writes)
            return EditBase(document: local.document, cached: cached, pendingCreate: local.isUnsentCreate)
        }
        if let cached {
            guard let object = cached.json?.objectValue else {
                throw CommandFailure("The cached copy of \(key) is not a JSON object; run `lib get \(key)` to refresh it.")
            }
            return EditBase(document: object, cached: cached, pendingCreate: false)
        }
        guard fetchIfMissing else { return EditBase(document: nil, cached: nil, pendingCreate: false) }
        // Nothing is changed yet: `lib` can still hand the edit to `lib-online`.
        try workspace.context.continueOnline(Edit.command.name)
        let fetched = try fetch(path, store: store, workspace: workspace)
        return EditBase(document: fetched.json?.objectValue, cached: fetched, pendingCreate: false)
    }

    /// `GET` of a document this device has never seen (the same request
    /// `lib get` makes), kept in the cache.
    private static func fetch(_ path: ResourcePath, store: AccountStore, workspace: AccountWorkspace) throws -> CachedDocument {
        let key = path.description
        let answer: ResourceFetcher.DocumentAnswer
        do {
            let api = workspace.api(token: try workspace.token())
            BookSchemaRefresh.ifStale(api, store: store, now: workspace.context.now().secondsSince1970)
            answer = try ResourceFetcher(api: api, rules: try BookRules.forAccount(store), explain: { workspace.explain($0, pendingWrites: 0) })
                .document(path, cachedETag: nil)
        } catch let failure as CommandFailure {
            throw CommandFailure("\(key) is not on this device yet and couldn't be fetched: \(failure.message) Run `lib get \(key)` while online, then edit it.",
                                 exitCode: failure.exitCode)
        }
        switch answer {
        case .fresh(let body, let etag):
            let now = workspace.context.now().secondsSince1970
            try store.cache.save(key, body: body, etag: etag, at: now)
            return CachedDocument(path: key, body: body, etag: etag, fetchedAt: now, validatedAt: now)
        case .notFound, .notModified:
            throw CommandFailure("\(key) doesn't exist on \(workspace.account.origin.hostAndPort): use `lib edit \(key) --create` to create it.")
        }
    }
}
