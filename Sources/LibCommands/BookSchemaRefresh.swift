import LibBase
import LibClient
import LibSync

/// Keeps the account's copy of the server's book schema current, riding on
/// reads with a conditional `GET /v1/schemas/book` on the same connection,
/// so that answers are checked with the server's own rules. It never
/// spends a read's budget: before a read only when no copy is stored at
/// all (a transport failure then is the read's: one timeout, not two), and
/// after a successful read when the copy is older than `maximumAge`, with a
/// small budget of its own. Best effort: the copy (or the built-in schema)
/// stays in use when it fails.
enum BookSchemaRefresh {
    /// Ten minutes: a server's schema changes with a restart, rarely.
    static let maximumAge: Double = 600
    /// What a refresh after a read may wait for its answer.
    static let budgetAfterRead: Double = 1

    /// Before the first read of an account: the server's schema when none is stored.
    static func ifMissing(_ api: ServerAPI, store: AccountStore, now: UnixSeconds) throws(RequestFailure) {
        guard (try? store.cache.serverDocument(.bookSchema)) == nil else { return }
        keep(try BookSchemaFetch.conditional(api, etag: nil), store: store, now: now)
    }

    /// After a successful read: a conditional refresh of a stale copy.
    static func ifStale(_ api: ServerAPI, store: AccountStore, now: UnixSeconds) {
        let stored = try? store.cache.serverDocument(.bookSchema)
        if let stored, now - stored.checkedAt < maximumAge, now >= stored.checkedAt { return }
        let budget = min(budgetAfterRead, api.secondsLeft ?? budgetAfterRead)
        guard budget > 0.05, let answer = try? BookSchemaFetch.conditional(api, etag: stored?.etag, timeout: budget) else { return }
        keep(answer, store: store, now: now)
    }

    private static func keep(_ answer: BookSchemaFetch.Answer?, store: AccountStore, now: UnixSeconds) {
        switch answer {
        case .notModified?:
            try? store.cache.markServerDocumentChecked(.bookSchema, at: now)
        case .schema(let text, let etag)?:
            // Only a schema that can be applied replaces the one in use.
            try? store.cache.saveServerDocument(.bookSchema, text: text, etag: etag, at: now)
        case nil:
            return
        }
    }
}
