import LibBase
import LibClient
import LibSync

/// Keeps the account's copy of the server's book schema current, riding on
/// reads: before a read, a conditional `GET /v1/schemas/book` on the same
/// connection when the copy is missing or older than `maximumAge` (so
/// that the answer is checked with the server's own rules). Best effort: a failure here never fails the read, and the
/// copy (or the built-in schema) stays in use.
enum BookSchemaRefresh {
    /// Ten minutes: a server's schema changes with a restart, rarely.
    static let maximumAge: Double = 600

    static func ifStale(_ api: ServerAPI, store: AccountStore, now: UnixSeconds) {
        let stored = try? store.cache.bookSchema()
        if let stored, now - stored.checkedAt < maximumAge, now >= stored.checkedAt { return }
        switch BookSchemaFetch.conditional(api, etag: stored?.etag) {
        case .notModified?:
            try? store.cache.markBookSchemaChecked(at: now)
        case .schema(let text, let etag)?:
            // Only a schema that can be applied replaces the one in use.
            try? store.cache.saveBookSchema(text: text, etag: etag, at: now)
        case nil:
            return
        }
    }
}
