import LibJSON
import LibSync
import LibBase
import LibClient

/// What the account's store alone can show for a path: the cached copy (of
/// a document, or of a collection's members) with the unsent writes applied.
/// Reading it touches neither the network nor the keyring.
struct LocalCopy {
    let path: ResourcePath
    /// One view for a document; the members, in the server's order, for a collection.
    let views: [DocumentView]
    /// When the server last said the copy was current; nil when only unsent writes exist.
    let confirmedAt: UnixSeconds?

    /// Reads `path` from `store`; nil when there is neither a cached copy nor an unsent write.
    static func read(_ path: ResourcePath, from store: AccountStore) throws -> LocalCopy? {
        path.isDocument ? try document(path, store) : try collection(path, store)
    }

    private static func document(_ path: ResourcePath, _ store: AccountStore) throws -> LocalCopy? {
        let key = path.description
        let cached = try store.cache.document(at: key)
        let items = try store.outbox.items(for: key)
        if cached == nil && items.isEmpty { return nil }
        // A pull read the feed up to its time: a copy it did not change was current then.
        let pulled = cached == nil ? nil : try LibraryMirror(db: store.database, collection: path.collection).lastPulled()
        return LocalCopy(path: path, views: [DocumentView(path: key, serverCopy: cached?.json, outboxItems: items)],
                         confirmedAt: cached.map { max($0.validatedAt, pulled ?? 0) })
    }

    private static func collection(_ path: ResourcePath, _ store: AccountStore) throws -> LocalCopy? {
        let cached = try store.cache.collection(at: path.description)
        let prefix = path.description + "/"
        let unsent = Dictionary(grouping: try store.outbox.all().filter { $0.path.hasPrefix(prefix) }, by: \.path)
        if cached == nil && unsent.isEmpty { return nil }
        let members = cached?.members ?? []
        var views = members.map { DocumentView(path: $0.path, serverCopy: $0.json, outboxItems: unsent[$0.path] ?? []) }
        // Documents created on this device are listed too, after the server's.
        let listed = Set(members.map(\.path))
        for (memberPath, items) in unsent.sorted(by: { $0.key < $1.key }) where !listed.contains(memberPath) {
            views.append(DocumentView(path: memberPath, serverCopy: nil, outboxItems: items))
        }
        return LocalCopy(path: path, views: views, confirmedAt: cached?.fetchedAt)
    }
}
