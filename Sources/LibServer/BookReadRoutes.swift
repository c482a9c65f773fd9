import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/books/{id}`: the document and its ETag; 304 when the client's
    /// `If-None-Match` names the current ETag.
    func getBook(_ request: HTTPRequest, id: String) throws -> HTTPResponse {
        try requireValidID(id)
        guard let book = try store.read({ try BookStore.record(id, in: $0) }), let document = book.document else {
            throw ProblemError(.notFound("There is no book '\(id)'"))
        }
        if let tags = request.headers["If-None-Match"], ETagList(tags).matches(book.etag) {
            return HTTPResponse(status: 304, headers: HTTPHeaders([("ETag", book.etag)]))
        }
        return .json(200, .object(document), etag: book.etag)
    }

    /// `GET /v1/books[?after=ID&limit=N]`: a page of books in id order, each
    /// with its `etag`, and `next` (the `after` for the next page) or null.
    func listBooks(_ request: HTTPRequest) throws -> HTTPResponse {
        var limit = 100
        if let text = request.query["limit"] {
            guard let n = Int(text), (1...1000).contains(n) else {
                throw ProblemError(.badRequest("limit must be an integer from 1 to 1000, not '\(text)'"))
            }
            limit = n
        }
        let page = try store.read { try BookStore.list(after: request.query["after"], limit: limit, in: $0) }
        let items: [JSONValue] = page.items.compactMap { book in
            guard var document = book.document else { return nil }
            document["etag"] = .string(book.etag)
            return .object(document)
        }
        return .json(200, ["items": .array(items), "next": page.next.map { .string($0) } ?? .null])
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

/// The entity tags of an `If-Match` or `If-None-Match` header, compared
/// strongly (RFC 9110 §13.1.1): `*` matches any current version.
struct ETagList {
    let tags: [String]

    init(_ header: String) {
        tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    var isWildcard: Bool { tags == ["*"] }

    func matches(_ etag: String) -> Bool { isWildcard || tags.contains(etag) }
}

import Foundation
