import LibJSON
import LibBase

/// A document as last received from the server, with what is needed to
/// revalidate it (its ETag) and to say how old it is.
public struct CachedDocument: Sendable, Equatable {
    public let path: String
    public let body: String
    public let etag: String?
    public let fetchedAt: UnixSeconds
    public let validatedAt: UnixSeconds

    public init(path: String, body: String, etag: String?, fetchedAt: UnixSeconds, validatedAt: UnixSeconds) {
        self.path = path
        self.body = body
        self.etag = etag
        self.fetchedAt = fetchedAt
        self.validatedAt = validatedAt
    }

    public var json: JSONValue? { try? JSONParser.parse(body) }
}
