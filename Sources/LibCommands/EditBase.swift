#if canImport(Glibc)
import Glibc
#endif
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
        let fetched = try fetch(path, store: store, workspace: workspace)
        return EditBase(document: fetched.json?.objectValue, cached: fetched, pendingCreate: false)
    }

    /// The account's store when it exists (an existing store is opened as
    /// the edit opens it, which changes nothing unless an earlier release
    /// made it); nil when there is none yet.
    static func existingStore(_ workspace: AccountWorkspace) -> AccountStore? {
        guard access(workspace.paths.storePath(workspace.name), F_OK) == 0 else { return nil }
        return try? workspace.openStore()
    }

    /// Whether the device has the document: a cached copy or writes of it.
    static func holds(_ path: ResourcePath, _ store: AccountStore) -> Bool {
        let key = path.description
        return (try? store.cache.document(at: key)) != nil || (try? store.outbox.items(for: key).isEmpty) == false
    }

    /// `GET` of a document this device has never seen (the same request
    /// `lib get` makes), kept in the cache.
    private static func fetch(_ path: ResourcePath, store: AccountStore, workspace: AccountWorkspace) throws -> CachedDocument {
        let key = path.description
        let answer: ResourceFetcher.DocumentAnswer
        do {
            let api = workspace.api(token: try workspace.token())
            let now = workspace.context.now().secondsSince1970
            do {
                try BookSchemaRefresh.ifMissing(api, store: store, now: now)
                answer = try ResourceFetcher(api: api, rules: try BookRules.forAccount(store)).document(path, cachedETag: nil)
            } catch {
                throw workspace.explained(error)
            }
            BookSchemaRefresh.ifStale(api, store: store, now: now)
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
