import LibHTTPServer

/// One row of the route table: a method on a path pattern, who may call
/// it, and what answers it.
struct Route: Sendable {
    /// What answers a route, by who may call it: that decides how the
    /// dispatcher wraps the answer (a 401 first, the Idempotency-Key echoed).
    enum Answer: Sendable {
        /// Anyone, signed in or not (`POST /v1/sessions`, the fault controls).
        case anyone(@Sendable (LibraryService, RouteCall) throws -> HTTPResponse)
        /// A live bearer token is needed: 401 without one.
        case signedIn(@Sendable (LibraryService, RouteCall, User) throws -> HTTPResponse)
        /// A live token is needed, and the answer only reads: the token's
        /// check and the answer share one connection and one snapshot
        /// (`ServerStore.readTogether`), the connection passed to the
        /// answer, and on PostgreSQL one round trip: the user is asked for
        /// (`ReadingAnswer`), not given.
        case reading(ReadingAnswer)
        /// A write of a book: signed in, and every answer (401 and problems
        /// too) carries the request's `Idempotency-Key` back.
        case write(@Sendable (LibraryService, RouteCall, User) throws -> HTTPReply)
        /// A live token is needed, and the answer may come later (the
        /// change feed that waits).
        case signedInMayWait(@Sendable (LibraryService, RouteCall, User) throws -> HTTPReply)
    }

    /// A reading route's answer. The token's check is read after it (no
    /// answer goes out before the check passes); the answer that needs the
    /// user asks for it, which reads the check first.
    typealias ReadingAnswer = @Sendable (LibraryService, RouteCall, _ user: () throws -> User, any SQLConnection) throws -> HTTPResponse

    let method: String
    let pattern: RoutePattern
    let answer: Answer
    /// Its row in the table: what the request metrics count it under.
    var index = 0

    init(_ method: String, _ pattern: String, _ answer: Answer) {
        self.method = method
        self.pattern = RoutePattern(pattern)
        self.answer = answer
    }

    /// A route of protocol v2 (`/v2/...`).
    var isV2: Bool { pattern.segments.first == .literal("v2") }

    var isWrite: Bool {
        if case .write = answer { return true }
        return false
    }
}

/// A request as its route sees it: the request and the path's parameters.
struct RouteCall {
    let request: HTTPRequest
    let parameters: [String: String]

    /// A parameter the route's pattern names (so it is always there).
    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}
