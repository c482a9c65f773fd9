import LibBase
import LibJSON
import LibNet

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

extension ResourceFetcher {
    /// `GET /v1/books/b-7/history`: every version, oldest first; nil when
    /// the server never had the book (a 404 problem). An answer that is not
    /// a history from the library server is a temporary failure.
    public func history(_ path: ResourcePath) throws -> [BookVersion]? {
        let target = path.apiPath + "/history"
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", target)
            if let failure = api.failure(for: answer) { throw failure }
        } catch let failure as TransportFailure {
            throw explain(failure)
        }
        if answer.status == 404 && answer.isProblemJSON { return nil }
        guard answer.status == 200 else {
            if !answer.isProblemJSON { throw historyNotFromServer(answer.seen) }
            throw CommandFailure("\(api.endpoint.hostAndPort) answered GET \(target) with \(answer.status): \(answer.problemDetail)")
        }
        guard answer.mediaType == "application/json", let items = answer.json?.objectValue?["items"]?.arrayValue else {
            throw historyNotFromServer(answer.seen + " where a book's history was expected")
        }
        return try items.map { item in
            guard let entry = item.objectValue, let version = entry["version"]?.integerValue,
                  let etag = entry["etag"]?.stringValue, let by = entry["updated_by"]?.stringValue,
                  let at = entry["at"]?.stringValue else {
                throw historyNotFromServer("a history with an entry that is not a version")
            }
            let document = entry["document"]?.objectValue
            if entry["document"] != .null && document == nil {
                throw historyNotFromServer("a history with a version that is not a book")
            }
            return BookVersion(version: version, etag: etag, updatedBy: by, updatedByName: entry["updated_by_name"]?.stringValue,
                               at: at, document: document)
        }
    }

    private func historyNotFromServer(_ seen: String) -> CommandFailure {
        explain(TransportFailure(kind: .notFromLibraryServer(seen: seen), endpoint: api.endpoint))
    }
}
