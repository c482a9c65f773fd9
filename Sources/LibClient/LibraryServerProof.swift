import LibNet

/// The one check that an answer came from the library server, for reads and
/// writes alike (DESIGN.md: "a write is done only when the library server
/// proves it"; what `get` caches must be as sound). Each returns nil when the
/// answer proves it, or what it was instead, as words for "an answer that did
/// not come from the library server: …". Such answers (a captive portal's
/// page, `{}`, cut JSON, a proxy's 200) are temporary failures: nothing is
/// cached, no write is settled.
public enum LibraryServerProof {
    /// A book in a 200 or 201: `application/json` with an ETag, and a valid
    /// book whose `id` is the path's.
    public static func doubtAboutBook(_ response: HTTPResponse, id: String, rules: BookRules) -> String? {
        guard response.mediaType == "application/json" else { return "\(response.seen) where a book was expected" }
        guard let etag = response.headers["ETag"], !etag.isEmpty else { return "\(response.status) JSON without an ETag" }
        return ServedBook.problem(in: response.body, id: id, rules: rules).map { "\(response.status) with \($0)" }
    }

    /// An answer that settles a write (2xx, 412, another 4xx): it carries the
    /// request's Idempotency-Key back, and a PUT's success is 200 or 201 with
    /// the book.
    public static func doubtAboutWrite(_ response: HTTPResponse, key: String, isPut: Bool, id: String,
                                       rules: BookRules) -> String? {
        guard response.headers["Idempotency-Key"] == key else {
            return "\(response.seen) without this write's Idempotency-Key"
        }
        guard (200...299).contains(response.status), isPut else { return nil }
        guard response.status == 200 || response.status == 201 else { return "\(response.seen) to a PUT" }
        return doubtAboutBook(response, id: id, rules: rules)
    }
}
