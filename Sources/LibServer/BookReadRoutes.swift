import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/books/{id}`: the document and its ETag; 304 when the client's
    /// `If-None-Match` names the current ETag.
    func getBook(_ request: HTTPRequest, id: String) throws -> HTTPResponse {
        try requireValidID(id)
        guard let book = try store.read({ try BookStore.storedDocument(id, in: $0) }) else {
            throw ProblemError(.notFound("There is no book '\(id)'"))
        }
        switch try preconditions(of: request).evaluate(method: request.method, current: EntityTag(parsing: book.etag)) {
        case .notModified:
            return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", book.etag)]))
        case .failed(let field):
            var problem = Problem(status: 412, title: "Precondition Failed",
                                  detail: "\(field) does not match book '\(id)' (its current version is \(book.etag))")
            problem.headers = [("ETag", book.etag)]
            return problem.response
        case .proceed:
            // Stored as LibJSON serialized it: sent as it is, without parsing it again.
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("ETag", book.etag)]),
                                body: Array(book.json.utf8))
        }
    }

    /// A page's `limit`: 100 unless the query asks for 1 to 1000.
    static func pageLimit(_ request: HTTPRequest) throws -> Int {
        guard let text = request.query["limit"] else { return 100 }
        guard let n = Int(text), (1...1000).contains(n) else {
            throw ProblemError(.badRequest("limit must be an integer from 1 to 1000, not '\(text)'"))
        }
        return n
    }

    /// `GET /v1/books[?after=ID&limit=N]`: a page of books in id order, each
    /// with its `etag`, and `next` (the `after` for the next page) or null.
    func listBooks(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try Self.pageLimit(request)
        let page = try store.read { try BookStore.list(after: request.query["after"], limit: limit, in: $0) }
        let items: [JSONValue] = page.items.compactMap { book in
            guard var document = book.document else { return nil }
            document["etag"] = .string(book.etag)
            return .object(document)
        }
        var answer = JSONObject([("items", .array(items)), ("next", page.next.map { .string($0) } ?? .null)])
        // The first page says how many there are, for a client's progress
        // ("3,000/20,000"); later pages do not count again.
        if request.query["after"] == nil {
            answer["total"] = .integer(try store.read { try BookStore.liveCount(in: $0) })
        }
        return .json(200, .object(answer))
    }

    /// `GET /v1/books/{id}/history`: every version, who wrote it and when.
    func history(id: String) throws -> HTTPResponse {
        try requireValidID(id)
        let items = try store.read { try BookStore.history(id, in: $0) }
        if items.isEmpty { throw ProblemError(.notFound("There is no book '\(id)'")) }
        return .json(200, ["items": .array(items)])
    }

    func requireValidID(_ id: String) throws {
        guard BookValidation.isValidID(id) else {
            throw ProblemError(.badRequest("'\(id)' is not a valid book id (1–128 letters, digits, '-', '.', '_' or '~')"))
        }
    }
}

extension LibraryService {
    /// The request's `If-Match` and `If-None-Match`, or a 400 naming the
    /// field that is not `*` or a list of entity tags.
    func preconditions(of request: HTTPRequest) throws -> Preconditions {
        do {
            return try Preconditions(headers: request.headers)
        } catch {
            throw ProblemError(.badRequest("\(error.name) must be * or a list of entity tags such as \"3-9f2c1a07\""))
        }
    }
}

import Foundation
