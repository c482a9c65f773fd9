import LibBookSchema
import LibSync
import LibBase

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
        var headers: [(String, String)] = []
        if let etag = stored?.etag { headers.append(("If-None-Match", etag)) }
        guard let answer = try? api.send("GET", "/v1/schemas/book", headers: headers) else { return }
        switch answer.status {
        case 304 where stored != nil:
            try? store.cache.markBookSchemaChecked(at: now)
        case 200:
            let text = String(decoding: answer.body, as: UTF8.self)
            // Only a schema that can be applied replaces the one in use.
            guard (try? BookSchema(text: text)) != nil else { return }
            try? store.cache.saveBookSchema(text: text, etag: answer.headers["ETag"], at: now)
        default:
            return
        }
    }
}
