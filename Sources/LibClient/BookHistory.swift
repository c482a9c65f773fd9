import LibJSON

/// One version of a book in the server's history (`GET /v1/books/{id}/history`):
/// who made it and when, and the document it left (nil: a deletion).
public struct BookVersion: Sendable, Equatable {
    public let version: Int64
    public let etag: String
    /// The writer's user id (`demo` for the demo data) and, when the writer is a user, their name.
    public let updatedBy: String
    public let updatedByName: String?
    /// RFC 3339, UTC, as the server wrote it.
    public let at: String
    public let document: JSONObject?

    /// The writer as a person reads it: the name, else the id.
    public var writer: String { updatedByName ?? updatedBy }
}
