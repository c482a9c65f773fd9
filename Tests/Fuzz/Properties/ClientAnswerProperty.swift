import LibAccounts
@testable import LibCommands
import LibJSON
@testable import LibNet
@testable import LibSync
import LibBase
import LibClient

/// How lib reads an answer, as push and get see it: the header block as
/// libcurl hands it over (status line, fields, folded lines), then the
/// status, headers and body classified as DESIGN.md's "Writes: the outbox"
/// says. Never a crash; a write counts as applied only when the answer
/// proves it came from the library server (the write's Idempotency-Key
/// echoed, and for a PUT a 200/201 `application/json` valid book with the
/// path's id and an ETag); a conflict keeps only JSON as "theirs"; a
/// temporary failure never asks for a negative wait; and a book get would
/// keep is a JSON object with the path's id.
///
/// Input: the header block ("HTTP/1.1 200 OK\r\nName: value\r\n..."), NUL, the body.
enum ClientAnswerProperty: FuzzProperty {
    /// Answers every request with the fuzzed response.
    struct Replay: HTTPTransport {
        let response: LibNet.HTTPResponse
        func send(_ request: LibNet.HTTPRequest) throws(TransportFailure) -> LibNet.HTTPResponse { response }
    }

    static let key = "k-16"

    static func item(_ method: OutboxItem.Method) -> OutboxItem {
        var title = FieldChanges()
        title["title"] = .some(.string("Dune"))
        return OutboxItem(seq: 1, path: "books/b-7", intent: method == .put ? .change(title) : .delete,
                          baseBody: #"{"id":"b-7","title":"Old"}"#, baseETag: "\"1-a\"", ifMatch: "\"1-a\"",
                          idempotencyKey: key)
    }

    static func check(_ input: [UInt8]) -> String? {
        let parts = fuzzParts(input, count: 2)
        let block = parts[0]
        let parsed = LibNet.HTTPResponse.parseHeaderBlock(block)
        // libcurl reads the status code from the status line itself.
        let statusText = String(decoding: block.prefix(while: { $0 != 13 && $0 != 10 }), as: UTF8.self)
            .split(separator: " ").dropFirst().first
        let status = statusText.flatMap { Int($0) }.map { min(max($0, 0), 999) } ?? 200
        let response = LibNet.HTTPResponse(status: status, reason: parsed.reason, headers: parsed.headers, body: parts[1])
        _ = response.description
        if let delay = response.retryAfter, delay.seconds < 0 { return "a negative Retry-After" }
        let origin = ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080)
        let api = ServerAPI(transport: Replay(response: response), origin: origin, token: nil)

        for method in [OutboxItem.Method.put, .delete] {
            let explainer = FailureExplainer { FailureExplanation(failure: $0, path: .unknown, account: nil, pendingWrites: 0) }
            let sender = HTTPWriteSender(api: api, rules: .builtIn, deadline: nil, explainer: explainer)
            let (outcome, _) = sender.send(item(method))
            switch outcome {
            case .applied:
                guard response.headers["Idempotency-Key"] == key, (200...299).contains(status) else {
                    return "\(method) applied on \(status) without the echoed key"
                }
                if method == .put {
                    guard [200, 201].contains(status), response.mediaType == "application/json",
                          let etag = response.headers["ETag"], !etag.isEmpty,
                          let book = try? JSONParser.parse(response.body), book["id"] == "b-7"
                    else { return "a PUT was applied on an answer that does not prove it: \(response)" }
                }
            case .conflict(let theirs, _):
                guard status == 412, response.headers["Idempotency-Key"] == key else {
                    return "a conflict on \(status) without proof it is the server's"
                }
                if let theirs, (try? JSONParser.parse(theirs)) == nil { return "a conflict kept '\(theirs)' as theirs" }
            case .rejected(let problem):
                guard (400...499).contains(status), ![401, 409, 412, 429].contains(status),
                      response.headers["Idempotency-Key"] == key
                else {
                    return "\(method) rejected on \(status)"
                }
                if problem.isEmpty { return "a rejection without a reason" }
            case .temporary(let reason, let after, _):
                if reason.isEmpty { return "a temporary failure without a reason" }
                if let after, after < 0 { return "a negative Retry-After" }
            case .unauthorized:
                guard status == 401 else { return "unauthorized on \(status)" }
            }
        }
        // What get keeps of a 200: only a valid book with the path's id.
        if ServedBook.problem(in: response.body, id: "b-7", rules: .builtIn) == nil {
            guard let book = try? JSONParser.parse(response.body), book.objectValue?["id"] == "b-7" else {
                return "get would keep a body that is not the book"
            }
        }
        _ = TransportFailure(response: response, endpoint: api.endpoint)
        return nil
    }
}
