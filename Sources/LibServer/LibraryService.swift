import Foundation
import LibBookSchema
import LibHTTPServer
import LibJSON
import LibStore

/// Protocol v1 (docs/PROTOCOL.md): turns each HTTP request into its answer.
public final class LibraryService: Sendable {
    let store: ServerStore
    let faults: FaultInjector
    let allowsFaultControl: Bool
    /// The rules books are checked with, served at GET /v1/schemas/book.
    let bookSchema: BookSchema
    /// argon2id takes ~64 MB and tens of milliseconds per hash: a few at a time.
    let passwordChecks = DispatchSemaphore(value: 2)
    let log: @Sendable (String) -> Void
    /// Where failures go, with or without --verbose: standard error unless
    /// the caller gave a log.
    let failureLog: @Sendable (String) -> Void
    /// Without --verbose, no per-request line is even formatted.
    let logsRequests: Bool
    let loginThrottle = LoginThrottle()
    /// How long a token works after its sign-in, in seconds.
    let sessionLifetime: TimeInterval
    public static let defaultSessionLifetime: TimeInterval = 30 * 24 * 3600

    public init(store: ServerStore, faults: [FaultRule] = [], allowsFaultControl: Bool = false,
                bookSchema: BookSchema = BuiltInBookSchema.schema, sessionLifetime: TimeInterval = defaultSessionLifetime,
                log: (@Sendable (String) -> Void)? = nil) {
        self.sessionLifetime = sessionLifetime
        self.bookSchema = bookSchema
        self.store = store
        self.faults = FaultInjector(faults)
        self.allowsFaultControl = allowsFaultControl
        self.log = log ?? { _ in }
        failureLog = log ?? { line in FileHandle.standardError.write(Data("lib-server: \(line)\n".utf8)) }
        logsRequests = log != nil
    }

    public func handle(_ request: HTTPRequest) -> HTTPReply {
        guard logsRequests else { return route(request) }
        let started = Date()
        let reply = route(request)
        if case .respond(let response) = reply {
            log("\(request.method) \(request.target) \(response.status) \(Int(Date().timeIntervalSince(started) * 1000))ms")
        }
        return reply
    }

    private func route(_ request: HTTPRequest) -> HTTPReply {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count >= 2, segments[1] == "_test" {
            return allowsFaultControl ? faultControl(request) : .respond(Problem.notFound("No such route: \(request.path)").response)
        }
        let isWrite = (request.method == "PUT" || request.method == "DELETE") && segments.count == 4 && segments[2] == "books"
        if let fault = faults.fire(.start(isWrite: isWrite), for: request) {
            switch fault.action {
            case .status(let code):
                var problem = Problem(status: code, title: Self.reason(code), detail: "The server was told to answer \(code) (fault injection)")
                if let seconds = fault.retryAfter { problem.headers.append(("Retry-After", String(seconds))) }
                return .respond(problem.response)
            case .delay(let ms): usleep(useconds_t(ms) * 1000)
            default: break
            }
        }
        let reply = Self.withCachingRules(dispatch(request, segments: segments), for: request, segments: segments)
        if case .respond(let response) = reply, faults.fire(.answer, for: request)?.action == .truncate {
            // The head and half of the body: the answer is cut mid-way.
            return .truncate(response, afterBytes: response.serializedHeadLength + response.body.count / 2)
        }
        return reply
    }

    private func dispatch(_ request: HTTPRequest, segments: [String]) -> HTTPReply {
        // segments[0] is the empty string before the first "/".
        let route = Array(segments.dropFirst())
        let method = request.method
        let bookID = route.count >= 3 && route[0] == "v1" && route[1] == "books" ? route[2] : nil
        do {
            if route == ["v1", "sessions"], method == "POST" { return .respond(try login(request)) }
            if route == ["v1", "sessions", "current"], method == "DELETE" {
                return .respond(try withUser(request) { try logout(request, $0) })
            }
            if route == ["v1", "me"], method == "GET" { return .respond(try withUser(request) { .json(200, $0.json) }) }
            if route == ["v1", "schemas", "book"], method == "GET" { return .respond(try withUser(request) { _ in try bookSchemaAnswer(request) }) }
            if route == ["v1", "books"], method == "GET" { return .respond(try withUser(request) { _ in try listBooks(request) }) }
            if let id = bookID, route.count == 3, method == "GET" {
                return .respond(try withUser(request) { _ in try getBook(request, id: id) })
            }
            if let id = bookID, route.count == 4, route[3] == "history", method == "GET" {
                return .respond(try withUser(request) { _ in try history(id: id) })
            }
            if let id = bookID, route.count == 3, method == "PUT" || method == "DELETE" {
                return Self.echoingIdempotencyKey(of: request, try {
                    guard let user = try authenticate(request) else { return .respond(try unauthorized(request).response) }
                    do { return try writeBook(request, user: user, id: id) } catch let problem as ProblemError {
                        return .respond(problem.problem.response)
                    }
                }())
            }
            return .respond(Self.unknownRoute(request, route).response)
        } catch let problem as ProblemError {
            return .respond(problem.problem.response)
        } catch {
            return .respond(FailureAnswer.answer(for: error, request: request, log: failureLog).response)
        }
    }

    /// Documents depend on who asks and change under other clients' writes:
    /// a cache may keep them only for that user, and must ask again before
    /// each use (ETags make that a cheap 304). A session's token must never
    /// be stored at all.
    private static func withCachingRules(_ reply: HTTPReply, for request: HTTPRequest, segments: [String]) -> HTTPReply {
        guard case .respond(var response) = reply, segments.count >= 3, segments[1] == "v1" else { return reply }
        if segments[2] == "sessions" {
            response.headers.set("Cache-Control", "no-store")
        } else if (segments[2] == "books" || segments[2] == "me") && (request.method == "GET" || request.method == "HEAD") {
            response.headers.set("Cache-Control", "private, no-cache")
            response.headers.set("Vary", "Authorization")
        } else {
            return reply
        }
        return .respond(response)
    }

    /// Every answer to a write carries the request's `Idempotency-Key` back
    /// (replays too): the client's proof that the library server, and not a
    /// portal or proxy on its address, answered this very write.
    private static func echoingIdempotencyKey(of request: HTTPRequest, _ reply: HTTPReply) -> HTTPReply {
        guard let key = request.headers["Idempotency-Key"], IdempotencyLedger.isValidKey(key) else { return reply }
        switch reply {
        case .respond(var response):
            response.headers.set("Idempotency-Key", key)
            return .respond(response)
        case .truncate(var response, let bytes):
            response.headers.set("Idempotency-Key", key)
            return .truncate(response, afterBytes: bytes)
        case .closeWithoutAnswer:
            return reply
        }
    }

    static let missingToken = "Send 'Authorization: Bearer TOKEN' with a token from POST /v1/sessions"

    /// The user behind the request's bearer token, or nil.
    func authenticate(_ request: HTTPRequest) throws -> User? {
        guard case .signedIn(let user) = try standing(of: request) else { return nil }
        return user
    }

    private func standing(of request: HTTPRequest) throws -> UserDirectory.TokenStanding {
        guard let token = Self.bearerToken(request) else { return .unknown }
        return try store.read { try UserDirectory.standing(ofToken: token, lifetime: sessionLifetime, in: $0) }
    }

    private func withUser(_ request: HTTPRequest, _ body: (User) throws -> HTTPResponse) throws -> HTTPResponse {
        guard let user = try authenticate(request) else { return try unauthorized(request).response }
        return try body(user)
    }

    /// The 401 for a request without a live token, saying which case it is.
    func unauthorized(_ request: HTTPRequest) throws -> Problem {
        if Self.bearerToken(request) == nil { return Problem.unauthorized(Self.missingToken) }
        if case .expired = try standing(of: request) {
            return Problem.unauthorized("The session expired (sessions last \(Int(sessionLifetime)) s): sign in again")
        }
        return Problem.unauthorized("The token is not valid (unknown or revoked): sign in again")
    }

    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    private static func unknownRoute(_ request: HTTPRequest, _ route: [String]) -> Problem {
        let allowed: [String]
        switch route {
        case ["v1", "sessions"]: allowed = ["POST"]
        case ["v1", "sessions", "current"]: allowed = ["DELETE"]
        case ["v1", "me"], ["v1", "books"], ["v1", "schemas", "book"]: allowed = ["GET"]
        case let r where r.count == 3 && r[0] == "v1" && r[1] == "books": allowed = ["GET", "PUT", "DELETE"]
        case let r where r.count == 4 && r[0] == "v1" && r[1] == "books" && r[3] == "history": allowed = ["GET"]
        default: return Problem.notFound("No such route: \(request.path)")
        }
        return Problem(status: 405, title: "Method Not Allowed", detail: "\(request.path) accepts \(allowed.joined(separator: ", ")), not \(request.method)",
                       headers: [("Allow", allowed.joined(separator: ", "))])
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Error"
        }
    }
}

/// A problem answer thrown from deep in a route.
struct ProblemError: Error {
    let problem: Problem
    init(_ problem: Problem) { self.problem = problem }
}
