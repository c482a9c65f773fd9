import LibBase
import LibCommands
import LibJSON
import LibNet
import Synchronization
import Testing

/// A stand-in for lib-server behind the transport seam, after gh's
/// `httpmock`: each test registers the requests it expects (method and
/// path, optionally a check of the request) with the answer to give, in
/// any order; each stub answers once. A request no stub matches is a test
/// failure (and a refused connection for the command); a stub never used is
/// a failure too, reported by `verify()`.
///
/// No socket is opened: `send` runs on the command's thread and answers at once.
final class StubServer: HTTPTransport, TransportFactory, @unchecked Sendable {
    typealias Answer = @Sendable (HTTPRequest) throws(TransportFailure) -> HTTPResponse

    struct Stub {
        let method: String
        /// The path after the origin, with its query (`/v1/books?limit=1000`).
        let target: String
        let answer: Answer
        let location: SourceLocation
        var used = false
    }

    let origin: ServerOrigin
    private let state = Mutex<(stubs: [Stub], received: [HTTPRequest], unexpected: [HTTPRequest])>(([], [], []))

    init(origin: ServerOrigin = ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080)) {
        self.origin = origin
    }

    /// The server's URL as a user types it.
    var url: String { origin.url }

    func makeTransport(_ configuration: TransportConfiguration) -> any HTTPTransport { self }

    /// Expects one `METHOD TARGET` request and answers it with `answer`.
    func on(_ method: String, _ target: String, sourceLocation: SourceLocation = #_sourceLocation, answer: @escaping Answer) {
        state.withLock { $0.stubs.append(Stub(method: method, target: target, answer: answer, location: sourceLocation)) }
    }

    /// Whether `GET /v2/capabilities` is answered by itself, as a v1
    /// server does (404), unless a test registers its own answer.
    var answersCapabilitiesAsV1 = true

    func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
        let target = String(request.url.dropFirst(origin.url.count))
        if answersCapabilitiesAsV1, request.method == "GET", target == "/v2/capabilities",
           !state.withLock({ $0.stubs.contains { !$0.used && $0.target == target } }) {
            return Answers.problem(404, "No such route: GET /v2/capabilities")
        }
        let answer: Answer? = state.withLock { state in
            state.received.append(request)
            guard request.url.hasPrefix(origin.url),
                  let index = state.stubs.firstIndex(where: { !$0.used && $0.method == request.method && $0.target == target })
            else {
                state.unexpected.append(request)
                return nil
            }
            state.stubs[index].used = true
            return state.stubs[index].answer
        }
        guard let answer else {
            Issue.record("unexpected request: \(request.method) \(request.url)")
            throw TransportFailure(kind: .connectionRefused, endpoint: origin)
        }
        return try answer(request)
    }

    /// Every request the command sent, in order.
    var received: [HTTPRequest] { state.withLock { $0.received } }

    /// The requests sent with this method and target, in order.
    func requests(_ method: String, _ target: String) -> [HTTPRequest] {
        received.filter { $0.method == method && $0.url == origin.url + target }
    }

    /// Fails the test for each stub never used (and repeats the unexpected requests).
    func verify(sourceLocation: SourceLocation = #_sourceLocation) {
        let (unused, unexpected) = state.withLock { ($0.stubs.filter { !$0.used }, $0.unexpected) }
        for stub in unused {
            Issue.record("stub never used: \(stub.method) \(stub.target)", sourceLocation: stub.location)
        }
        #expect(unexpected.isEmpty, "unexpected requests: \(unexpected.map { "\($0.method) \($0.url)" })",
                sourceLocation: sourceLocation)
    }
}

// MARK: - Faithful answers (docs/PROTOCOL.md)

/// The answers lib-server gives, with the headers it gives them with.
enum Answers {
    static func json(_ status: Int, _ body: JSONValue, _ extra: [(String, String)] = []) -> HTTPResponse {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "private, no-cache"),
                                   ("Vary", "Authorization")])
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, reason: reason(status), headers: headers, body: body.utf8Bytes)
    }

    /// `GET /v1/books/{id}`: 200, the document, its ETag.
    static func book(_ document: JSONValue, etag: String) -> HTTPResponse {
        json(200, document, [("ETag", etag)])
    }

    /// 304 on a matching `If-None-Match`: no body, the ETag.
    static func notModified(etag: String) -> HTTPResponse {
        HTTPResponse(status: 304, reason: "Not Modified", headers: HTTPHeaders([("ETag", etag)]))
    }

    /// An RFC 9457 problem, with extension members.
    static func problem(_ status: Int, _ detail: String, members: [(String, JSONValue)] = [],
                        headers extra: [(String, String)] = []) -> HTTPResponse {
        var object = JSONObject([("type", .string("about:blank")), ("title", .string(reason(status))),
                                 ("status", .integer(Int64(status))), ("detail", .string(detail))])
        for (name, value) in members { object[name] = value }
        var headers = HTTPHeaders([("Content-Type", "application/problem+json")])
        if status == 401 { headers.add("WWW-Authenticate", "Bearer realm=\"lib\"") }
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, reason: reason(status), headers: headers, body: JSONValue.object(object).utf8Bytes)
    }

    /// A write's answer: the same answer with the request's Idempotency-Key
    /// echoed back, as every answer of lib-server to a write carries it.
    static func echoingKey(of request: HTTPRequest, _ response: HTTPResponse) -> HTTPResponse {
        var response = response
        if let key = request.headers["Idempotency-Key"] { response.headers.add("Idempotency-Key", key) }
        return response
    }

    /// `PUT /v1/books/{id}` done: 200 (201 for a create) with the book as
    /// stored (the body sent, id first) and the new ETag, key echoed.
    static func stored(_ request: HTTPRequest, etag: String, status: Int = 200) -> HTTPResponse {
        let document = (try? JSONParser.parse(request.body)) ?? .null
        return echoingKey(of: request, json(status, document, [("ETag", etag)]))
    }

    /// `DELETE /v1/books/{id}` done: 204, key echoed.
    static func deleted(_ request: HTTPRequest) -> HTTPResponse {
        echoingKey(of: request, HTTPResponse(status: 204, reason: "No Content"))
    }

    /// 412 to a write: the current document and its ETag, in the problem and the header.
    static func preconditionFailed(_ request: HTTPRequest, id: String, current: JSONValue, etag: String) -> HTTPResponse {
        echoingKey(of: request, problem(
            412, "Book '\(id)' has changed since that version; its current version is \(etag)",
            members: [("current", current), ("current_etag", .string(etag))], headers: [("ETag", etag)]))
    }

    /// `GET /v1/schemas/book`: the built-in schema.
    static func bookSchema() -> HTTPResponse {
        HTTPResponse(status: 200, reason: "OK",
                     headers: HTTPHeaders([("Content-Type", "application/schema+json"), ("ETag", "\"schema-1\"")]),
                     body: Array(Fixtures.bookSchemaText.utf8))
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: ""
        }
    }
}
