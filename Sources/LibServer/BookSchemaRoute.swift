import LibBookSchema
import LibHTTPServer

extension LibraryService {
    /// `GET /v1/schemas/book`: the book's JSON Schema (2020-12), the very
    /// text this server validates with, with an ETag (304 on If-None-Match).
    func bookSchemaAnswer(_ request: HTTPRequest) throws -> HTTPResponse {
        let etag = "\"schema-" + String(Crypto.sha256Hex(Array(bookSchema.text.utf8)).prefix(32)) + "\""
        switch try preconditions(of: request).evaluate(method: request.method, current: EntityTag(parsing: etag)) {
        case .notModified: return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", etag)]))
        case .failed(let field):
            return Problem(status: 412, detail: "\(field) does not match the book schema",
                           headers: [("ETag", etag)]).response
        case .proceed: break
        }
        let headers = HTTPHeaders([("Content-Type", MediaType.schemaJSON), ("ETag", etag)])
        return HTTPResponse(status: 200, headers: headers, body: Array(bookSchema.text.utf8))
    }
}
