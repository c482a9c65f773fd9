import LibBookSchema
import LibHTTPServer

extension LibraryService {
    /// `GET /v1/schemas/book`: the book's JSON Schema (2020-12), the very
    /// text this server validates with, with an ETag (304 on If-None-Match).
    func bookSchemaAnswer(_ request: HTTPRequest) -> HTTPResponse {
        let etag = "\"schema-" + String(Crypto.sha256Hex(Array(bookSchema.text.utf8)).prefix(32)) + "\""
        if let tags = request.headers["If-None-Match"], ETagList(tags).matches(etag) {
            return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", etag)]))
        }
        let headers = HTTPHeaders([("Content-Type", "application/schema+json"), ("ETag", etag)])
        return HTTPResponse(status: 200, headers: headers, body: Array(bookSchema.text.utf8))
    }
}
