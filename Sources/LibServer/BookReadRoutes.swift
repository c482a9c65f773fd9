import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/books/{id}`: the document and its ETag; 304 when the client's
    /// `If-None-Match` names the current ETag.
    func getBook(_ request: HTTPRequest, id: String, in db: any SQLConnection) throws -> HTTPResponse {
        try requireValidID(id)
        guard let book = try BookStore.storedDocument(id, in: db) else {
            throw ProblemError(.notFound("There is no book '\(id)'"))
        }
        switch try preconditions(of: request).evaluate(method: request.method, current: EntityTag(parsing: book.etag)) {
        case .notModified:
            return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", book.etag)]))
        case .failed(let field):
            var problem = Problem(status: 412, detail: "\(field) does not match book '\(id)' (its current version is \(book.etag))")
            problem.headers = [("ETag", book.etag)]
            return problem.response
        case .proceed:
            // Stored as LibJSON serialized it: sent as it is, without parsing it again.
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", MediaType.json), ("ETag", book.etag)]),
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

    /// The documents one listing page holds at most (about): four readers
    /// asking for 1,000 books of 1 MiB each at once must not cost gigabytes.
    static let maxPageBytes = 4 * 1024 * 1024

    /// `GET /v1/books[?after=ID&limit=N]`: a page of books in id order, each
    /// with its `etag`, and `next` (the `after` for the next page) or null.
    /// A page ends early when its documents reach `maxPageBytes`. The body is
    /// put together from the stored JSON texts, without parsing them.
    func listBooks(_ request: HTTPRequest, in db: any SQLConnection) throws -> HTTPResponse {
        let limit = try Self.pageLimit(request)
        let page = try BookStore.list(after: request.query["after"], limit: limit, maxBytes: Self.maxPageBytes, in: db)
        var body = #"{"items":["#
        body.reserveCapacity(page.items.reduce(64) { $0 + $1.json.utf8.count + $1.etag.utf8.count + 12 })
        for (index, book) in page.items.enumerated() {
            if index > 0 { body += "," }
            // The stored text is an object LibJSON wrote: its member list
            // ends at its last "}"; the etag goes after the others.
            let text = book.json.dropLast()
            body += text + (text.utf8.count > 1 ? "," : "") + #""etag":"# + JSONValue.string(book.etag).serialized() + "}"
        }
        body += #"],"next":"# + (page.next.map { JSONValue.string($0).serialized() } ?? "null")
        // The first page says how many there are, for a client's progress
        // ("3,000/20,000"); later pages do not count again.
        if request.query["after"] == nil {
            body += #","total":"# + String(try BookStore.liveCount(in: db))
        }
        body += "}"
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", MediaType.json)]), body: Array(body.utf8))
    }

    /// `GET /v1/books/{id}/history`: every version, who wrote it and when.
    func history(id: String, in db: any SQLConnection) throws -> HTTPResponse {
        try requireValidID(id)
        let items = try BookStore.history(id, in: db)
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
