import Foundation
import LibBase
import LibBookSchema
import LibHTTPServer
import LibJSON
import LibStore

/// Protocol v1 (docs/PROTOCOL.md): turns each HTTP request into its answer.
public final class LibraryService: Sendable {
    let store: ServerStore
    let faults: FaultInjector
    /// Protocol v1's routes, and the fault controls when allowed.
    let routes: RouteTable
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
    let loginThrottle: LoginThrottle
    /// Device sign-in's budgets; nil with `--no-device-grant`.
    let deviceSignIn: DeviceSignIn?
    /// The time every record is dated with.
    let clock: ServerClock
    /// How long a token works after its last use, in seconds.
    let sessionLifetime: TimeInterval
    /// 90 days: a device offline for longer than the change feed keeps
    /// deletions (30 days) still comes back signed in.
    public static let defaultSessionLifetime: TimeInterval = 90 * 24 * 3600
    /// How long the change feed keeps a deletion, in seconds (`--change-retention`).
    let changeRetention: TimeInterval
    public static let defaultChangeRetention: TimeInterval = ChangeLog.defaultRetention
    /// What one `POST /v2/writes` may hold.
    let batchLimits: WriteBatchLimits
    /// What one `POST /v2/writes` may delete or blank without
    /// `Lib-Confirm-Mass-Change` (`--guard-books`, `--guard-percent`); nil: no limit.
    let massChangeGuard: MassChangeGuard?
    /// Change-feed requests waiting for a change.
    let changeWaiters: ChangeWaiters
    /// Requests by route and status, and their durations: only when an
    /// operations listener serves them (`--ops-listen`).
    let requestMetrics: RequestMetrics?
    /// What became of each write item.
    let writeOutcomes = WriteOutcomeCounts()
    /// Signed-in reads answered while nothing has been committed since.
    let recentReads = RecentReadAnswers()

    public init(store: ServerStore, faults: [FaultRule] = [], allowsFaultControl: Bool = false,
                bookSchema: BookSchema = BuiltInBookSchema.schema, sessionLifetime: TimeInterval = defaultSessionLifetime,
                changeRetention: TimeInterval = defaultChangeRetention, batchLimits: WriteBatchLimits = WriteBatchLimits(),
                massChangeGuard: MassChangeGuard? = .standard, speaksV2: Bool = true, deviceGrant: Bool = true, clock: ServerClock = .system,
                connectionLimits: HTTPServerLimits = HTTPServerLimits(),
                countsRequests: Bool = false, log: (@Sendable (String) -> Void)? = nil) {
        self.clock = clock
        loginThrottle = LoginThrottle(now: clock.now)
        deviceSignIn = deviceGrant ? DeviceSignIn(clock: clock) : nil
        self.sessionLifetime = sessionLifetime
        self.batchLimits = batchLimits
        self.massChangeGuard = massChangeGuard
        self.changeRetention = changeRetention
        self.bookSchema = bookSchema
        self.store = store
        changeWaiters = ChangeWaiters(notices: store.changeNotices, caps: WaiterCaps.Limits(connections: connectionLimits),
                                      pollsForOtherWriters: store.dialect == .sqlite,
                                      newest: { try store.read { try ChangeLog.state(in: $0).newest } })
        self.faults = FaultInjector(faults, log: log ?? { _ in })
        let protocolRoutes = speaksV2 ? Self.protocolRoutes : Self.protocolRoutes.filter { !$0.isV2 }
        routes = RouteTable(routes: protocolRoutes + (deviceGrant ? Self.deviceGrantRoutes : [])
                                + (allowsFaultControl ? Self.faultControlRoutes : []))
        requestMetrics = countsRequests ? RequestMetrics(routes: routes) : nil
        self.log = log ?? { _ in }
        failureLog = log ?? { line in FileHandle.standardError.write(Data("lib-server: \(line)\n".utf8)) }
        logsRequests = log != nil
    }

    public func handle(_ request: HTTPRequest) -> HTTPReply {
        // `route` always answers.
        measured(request) { route(request) } ?? .closeWithoutAnswer
    }

    /// The answer to a request that only reads (a signed-in GET of a book,
    /// a page, a history), kept from the same request since the last commit
    /// or read from a SQLite connection free now, for the event loop to
    /// send without handing the request to a thread; nil for any
    /// other request, or one that would wait (no connection free, a
    /// session's use to write down, a fault in force, PostgreSQL's round
    /// trips): a handler thread answers those with `handle`.
    public func answerWithoutWaiting(_ request: HTTPRequest) -> HTTPReply? {
        guard request.method == "GET" || request.method == "HEAD", store.dialect == .sqlite, faults.isOff else { return nil }
        return measured(request) { readOnLoop(request) }
    }

    /// `answer`'s reply, logged with --verbose and counted by the request metrics.
    private func measured(_ request: HTTPRequest, _ answer: () -> (reply: HTTPReply, route: Int?)?) -> HTTPReply? {
        guard logsRequests || requestMetrics != nil else { return answer()?.reply }
        let started = MonotonicClock.now()
        guard let (reply, routeIndex) = answer() else { return nil }
        if logsRequests, case .respond(let response) = reply {
            log("\(request.method) \(request.target) \(response.status) \(Int((MonotonicClock.now() - started) * 1000))ms")
        }
        if let metrics = requestMetrics { count(reply, in: metrics, row: metrics.row(route: routeIndex, method: request.method), since: started) }
        return reply
    }

    /// The answer kept from the same request since the last commit, or one
    /// read now (and kept when it can be).
    private func readOnLoop(_ request: HTTPRequest) -> (reply: HTTPReply, route: Int?)? {
        // Taken before the read: a commit during it leaves the answer kept under an old stamp.
        let stamp = store.commitWatch?.stamp
        let key = stamp == nil ? nil : RecentReadAnswers.Key(request)
        if let stamp, let key, let kept = recentReads.answer(for: key, stamp: stamp, now: clock.now()) {
            return (.respond(kept.response), kept.route)
        }
        let segments = RouteTable.segments(of: request.path)
        guard case .route(let route, let call) = routes.match(request, segments: segments),
              case .reading(let answer) = route.answer else { return nil }
        var response: HTTPResponse
        var session: Session?
        do {
            guard let read = try store.readTogetherIfFree({ db in
                try self.read(answer, call, in: db, session: &session)
            }) else { return nil }
            response = read
        } catch let problem as ProblemError {
            response = problem.problem.response
        } catch {
            // A failure is logged and answered by the handler thread that tries again.
            return nil
        }
        // Writing the session's use down is a write: a handler thread answers.
        if session?.renewalDue == true { return nil }
        guard case .respond(let withRules) = Self.withCachingRules(.respond(response), for: request, segments: segments) else { return nil }
        response = withRules
        if let stamp, let key, let session, response.status == 200 || response.status == 304 {
            recentReads.keep(.init(response: response, route: route.index, until: session.renewalDueAt), for: key, readAt: stamp)
        }
        return (.respond(response), route.index)
    }

    /// Counts an answer under its route and status; one that comes later
    /// (the change feed that waits) when it comes.
    private func count(_ reply: HTTPReply, in metrics: RequestMetrics, row: Int, since started: Double) {
        switch reply {
        case .respond(let response), .truncate(let response, _):
            metrics.record(row: row, status: response.status, seconds: MonotonicClock.now() - started)
        case .closeWithoutAnswer:
            break
        case .later(let pending):
            pending.whenCompleted { reply in
                if case .respond(let response) = reply {
                    metrics.record(row: row, status: response.status, seconds: MonotonicClock.now() - started)
                }
            }
        }
    }

    /// The answer, and the index of the route that gave it (nil: none did).
    private func route(_ request: HTTPRequest) -> (reply: HTTPReply, route: Int?) {
        let segments = RouteTable.segments(of: request.path)
        let match = routes.match(request, segments: segments)
        let index = if case .route(let route, _) = match { route.index } else { nil as Int? }
        return (route(request, match: match, segments: segments), index)
    }

    private func route(_ request: HTTPRequest, match: RouteTable.Match, segments: [Substring]) -> HTTPReply {
        // The fault controls never meet the faults they control.
        if segments.count >= 2, segments[1] == "_test" { return answer(match, to: request) }
        let isWrite = if case .route(let route, _) = match { route.isWrite } else { false }
        if let fault = faults.fire(.start(isWrite: isWrite), for: request) {
            switch fault.action {
            case .status(let code):
                var problem = Problem(status: code, detail: "The server was told to answer \(code) (fault injection)")
                if let seconds = fault.retryAfter { problem.headers.append(("Retry-After", String(seconds))) }
                return .respond(problem.response)
            case .delay(let ms): usleep(useconds_t(ms) * 1000)
            default: break
            }
        }
        let reply = Self.withCachingRules(answer(match, to: request), for: request, segments: segments)
        if case .respond(let response) = reply, faults.fire(.answer, for: request)?.action == .truncate {
            // The head and half of the body: the answer is cut mid-way.
            return .truncate(response, afterBytes: response.serializedHeadLength + response.body.count / 2)
        }
        return reply
    }

    /// The route's answer, or the route table's 404 or 405; a problem thrown
    /// on the way is the answer, any other failure a 5xx (`FailureAnswer`).
    private func answer(_ match: RouteTable.Match, to request: HTTPRequest) -> HTTPReply {
        do {
            switch match {
            case .noRoute: return .respond(Problem.noSuchRoute(request).response)
            case .wrongMethod(let allowed): return .respond(Problem.methodNotAllowed(request, allowed: allowed).response)
            case .route(let route, let call):
                switch route.answer {
                case .anyone(let answer): return .respond(try answer(self, call))
                case .signedIn(let answer):
                    switch try authenticate(request) {
                    case .user(let user): return .respond(try answer(self, call, user))
                    case .unauthorized(let problem): return .respond(problem.response)
                    }
                case .reading(let answer):
                    var session: Session?
                    let response = try store.readTogether { db in try self.read(answer, call, in: db, session: &session) }
                    if session?.renewalDue == true { recordUse(of: request) }
                    return .respond(response)
                case .signedInMayWait(let answer):
                    switch try authenticate(request) {
                    case .user(let user): return try answer(self, call, user)
                    case .unauthorized(let problem): return .respond(problem.response)
                    }
                case .write(let answer):
                    return Self.echoingIdempotencyKey(of: request, try {
                        switch try authenticate(request) {
                        case .unauthorized(let problem): return .respond(problem.response)
                        case .user(let user):
                            do { return try answer(self, call, user) } catch let problem as ProblemError {
                                return .respond(problem.problem.response)
                            }
                        }
                    }())
                }
            }
        } catch let problem as ProblemError {
            return .respond(problem.problem.response)
        } catch {
            return .respond(FailureAnswer.answer(for: error, request: request, log: failureLog).response)
        }
    }

    /// The signed-in session a reading answer was given to: its use is to
    /// be written down after it (`renewalDue`), or will be from `renewalDueAt` on.
    private struct Session {
        let renewalDue: Bool
        let renewalDueAt: Double
    }

    /// A reading route's answer, or the 401: the token's check and the
    /// answer share one connection and one snapshot. The check is asked
    /// first and read last, so that on PostgreSQL it goes with the
    /// answer's first round trip; nothing of the answer, not even a 404,
    /// goes to a request without a live token. `session`: set when the
    /// token is live.
    private func read(_ answer: Route.ReadingAnswer, _ call: RouteCall, in db: any SQLConnection,
                      session: inout Session?) throws -> HTTPResponse {
        let asked = try Self.bearerToken(call.request).map { try UserDirectory.askStanding(ofToken: $0, in: db) }
        let now = clock.now()
        // Read once: a failure (PostgreSQL gone) is thrown again as it was, for its 503.
        var known: Result<UserDirectory.TokenStanding, any Error>?
        let standing = { [sessionLifetime] () throws -> UserDirectory.TokenStanding in
            if let known { return try known.get() }
            let found = Result { try asked.map { try UserDirectory.standing(from: $0, lifetime: sessionLifetime, at: now) } ?? .unknown }
            known = found
            return try found.get()
        }
        let answered = Result {
            try answer(self, call, {
                guard case .signedIn(let user, _, _) = try standing() else { throw NotSignedIn() }
                return user
            }, db)
        }
        let checked: UserDirectory.TokenStanding
        do { checked = try standing() } catch is SQLAnswerMissing {
            // The round trip the check went in failed: the answer's failure says why (PostgreSQL gone: a 503).
            _ = try answered.get()
            throw SQLAnswerMissing()
        }
        guard case .signedIn(_, let due, let dueAt) = checked else { return unauthorized(call.request, checked).response }
        session = Session(renewalDue: due, renewalDueAt: dueAt)
        return try answered.get()
    }

    /// A reading answer asked for the user of a request without a live token.
    private struct NotSignedIn: Error {}

    /// Documents depend on who asks and change under other clients' writes:
    /// a cache may keep them only for that user, and must ask again before
    /// each use (ETags make that a cheap 304). A session's token must never
    /// be stored at all.
    private static func withCachingRules(_ reply: HTTPReply, for request: HTTPRequest, segments: [Substring]) -> HTTPReply {
        guard case .respond(var response) = reply, segments.count >= 3, segments[1] == "v1" else { return reply }
        if segments[2] == "sessions" {
            response.headers.set("Cache-Control", "no-store")
        } else if (segments[2] == "books" || segments[2] == "me" || segments[2] == "changes") && (request.method == "GET" || request.method == "HEAD") {
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
        case .closeWithoutAnswer, .later:
            return reply
        }
    }

    static let missingToken = "Send 'Authorization: Bearer TOKEN' with a token from POST /v1/sessions"

    /// Who sent a request: the user of its live token, or the 401 saying why nobody.
    enum Sender {
        case user(User)
        case unauthorized(Problem)
    }

    /// The user behind the request's bearer token; a use that is due to be
    /// written down is, before the request goes on.
    func authenticate(_ request: HTTPRequest) throws -> Sender {
        let standing = try store.read { db in try self.standing(of: request, in: db) }
        guard case .signedIn(let user, let renewalDue, _) = standing else { return .unauthorized(unauthorized(request, standing)) }
        if renewalDue { recordUse(of: request) }
        return .user(user)
    }

    private func standing(of request: HTTPRequest, in db: any SQLConnection) throws -> UserDirectory.TokenStanding {
        guard let token = Self.bearerToken(request) else { return .unknown }
        return try UserDirectory.standing(ofToken: token, lifetime: sessionLifetime, at: clock.now(), in: db)
    }

    /// Slides the session's end on. Best effort: a database that cannot take
    /// the write now (a full disk) still answers the request, and the next
    /// use tries again.
    private func recordUse(of request: HTTPRequest) {
        guard let token = Self.bearerToken(request) else { return }
        do {
            try store.write { try UserDirectory.recordUse(ofToken: token, at: clock.now(), in: $0) }
        } catch {
            failureLog("could not record a session's use: \(error)")
        }
    }

    /// The 401 for a request without a live token, saying which case it is.
    func unauthorized(_ request: HTTPRequest, _ standing: UserDirectory.TokenStanding) -> Problem {
        if Self.bearerToken(request) == nil { return Problem.unauthorized(Self.missingToken) }
        if case .expired = standing {
            return Problem.unauthorized("The session expired (unused for more than \(Int(sessionLifetime)) s): sign in again")
        }
        return Problem.unauthorized("The token is not valid (unknown or revoked): sign in again")
    }

    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        guard let space = header.utf8.firstIndex(of: UInt8(ascii: " ")),
              HTTPHeaders.sameName(String(header[..<space]), "Bearer") else { return nil }
        // Spaces and tabs only, byte by byte: Foundation's trimming was an eighth of a request's CPU.
        let token = String(header[header.utf8.index(after: space)...]).trimmingSpacesAndTabs()
        return token.isEmpty ? nil : token
    }
}

/// A problem answer thrown from deep in a route.
struct ProblemError: Error {
    let problem: Problem
    init(_ problem: Problem) { self.problem = problem }
}
