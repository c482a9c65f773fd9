import LibBookSchema

/// `GET /v1/schemas/book`, conditional on the copy's ETag: the schema the
/// server validates books with, checked to be one lib can apply.
public enum BookSchemaFetch {
    public enum Answer: Sendable, Equatable {
        /// 304: the copy with that ETag is current.
        case notModified
        /// A schema that can be applied, with its ETag.
        case schema(text: String, etag: String?)
    }

    /// nil on any failure or on an answer that is neither (best effort).
    public static func conditional(_ api: ServerAPI, etag: String?) -> Answer? {
        var headers: [(String, String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        guard let answer = try? api.send("GET", "/v1/schemas/book", headers: headers) else { return nil }
        switch answer.status {
        case 304 where etag != nil:
            return .notModified
        case 200:
            let text = String(decoding: answer.body, as: UTF8.self)
            guard (try? BookSchema(text: text)) != nil else { return nil }
            return .schema(text: text, etag: answer.headers["ETag"])
        default:
            return nil
        }
    }
}
