import LibBookSchema
import LibJSON
import LibNet

/// `GET /v1/schemas/book`, conditional on the copy's ETag: the schema the
/// server validates books with, checked to be one lib can apply.
public enum BookSchemaFetch {
    public enum Answer: Sendable, Equatable {
        /// 304: the copy with that ETag is current.
        case notModified
        /// A schema that can be applied, with its ETag.
        case schema(text: String, etag: String?)
    }

    /// The largest schema lib keeps (the built-in one is under 2 KB).
    public static let maxBytes = 64 * 1024
    /// The deepest nesting of objects and arrays lib keeps.
    public static let maxDepth = 32

    static func depth(of value: JSONValue) -> Int {
        if let object = value.objectValue { return 1 + (object.map { depth(of: $0.value) }.max() ?? 0) }
        if let array = value.arrayValue { return 1 + (array.map { depth(of: $0) }.max() ?? 0) }
        return 0
    }

    /// The schema, 304, or nil for an answer that is neither (best effort:
    /// a schema lib cannot apply is not taken). `timeout`: the request's own
    /// limit in seconds, so that a refresh never spends a read's.
    public static func conditional(_ api: ServerAPI, etag: String?, timeout: Double? = nil) throws(RequestFailure) -> Answer? {
        var headers: [(String, String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", "/v1/schemas/book", headers: headers, timeout: timeout)
        } catch {
            throw .transport(error)
        }
        switch answer.status {
        case 304 where etag != nil:
            return .notModified
        case 200:
            // Stored and read at every check of a book: a schema larger or
            // deeper than any real one (a 4 MB enum) is not taken.
            guard answer.body.count <= maxBytes else { return nil }
            let text = String(decoding: answer.body, as: UTF8.self)
            guard let json = try? JSONParser.parse(text), depth(of: json) <= maxDepth,
                  (try? BookSchema(text: text)) != nil else { return nil }
            return .schema(text: text, etag: answer.headers["ETag"])
        default:
            if let failure = api.failure(for: answer) { throw .transport(failure) }
            return nil
        }
    }
}
