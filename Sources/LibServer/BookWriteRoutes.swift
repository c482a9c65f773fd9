import Foundation
import LibBookSchema
import LibHTTPServer
import LibJSON
import LibStore

extension LibraryService {
    /// `PUT` and `DELETE /v1/books/{id}`: checked in the order a client can
    /// act on (role, key, precondition, document), then applied exactly once
    /// per idempotency key, with the answer recorded in the same transaction.
    func writeBook(_ request: HTTPRequest, user: User, id: String) throws -> HTTPReply {
        let isDelete = request.method == "DELETE"
        guard user.role == .librarian else {
            throw ProblemError(.forbidden("\(user.username) is a reader: only librarians may change books"))
        }
        try requireValidID(id)
        guard let key = request.headers["Idempotency-Key"] else {
            throw ProblemError(.badRequest("Writes need an Idempotency-Key header (a unique value per write, reused for its retries)"))
        }
        guard IdempotencyLedger.isValidKey(key) else {
            throw ProblemError(.badRequest("The Idempotency-Key must be 1 to 255 visible ASCII characters"))
        }
        let conditions = try preconditions(of: request)
        let pinsAVersion = conditions.ifMatch != nil || (!isDelete && conditions.ifNoneMatch == .any)
        guard pinsAVersion else {
            let how = isDelete ? "If-Match: ETAG" : "If-Match: ETAG (to update) or If-None-Match: * (to create)"
            throw ProblemError(Problem(status: 428, detail: "Writes must say which version they change: send \(how)"))
        }
        var document: JSONObject?
        if !isDelete {
            let body = try jsonObject(request)
            let problems = bookSchema.problems(in: body, id: id)
            if !problems.isEmpty {
                let detail = "The book is invalid: " + problems.map(\.sentence).joined(separator: "; ")
                throw ProblemError(.unprocessable(detail, problems: problems))
            }
            document = BookValidation.normalized(body, id: id)
        }

        let requestHash = IdempotencyLedger.requestHash(method: request.method, path: request.path, body: request.body)
        // One connection from the claim to the answer: on PostgreSQL the
        // claim lives as long as that connection's lock on the key.
        return try store.withConnection { db in
            var claimed: String?
            defer { KeyClaimHolder.letGo(claimed, in: db) }
            let claim: String
            switch try db.transaction({
                try IdempotencyLedger.claim(user: user.id, key: key, requestHash: requestHash, holding: .request, at: clock.now(), in: db)
            }) {
            case .claimed(let id): claim = id
            case .replay(let answer): return .respond(Self.response(for: answer, replayed: true))
            case .keyReusedWithAnotherRequest: throw ProblemError(Self.keyReused)
            case .inFlight: throw ProblemError(Self.keyInFlight)
            }
            claimed = claim
            var finished = false
            defer {
                if !finished {
                    _ = try? db.transaction { try IdempotencyLedger.release(claim, user: user.id, key: key, in: db) }
                }
            }

            switch faults.fire(.beforeWrite, for: request)?.action {
            case .dropBeforeWrite?: return .closeWithoutAnswer
            case .delay(let ms)?: usleep(useconds_t(ms) * 1000)
            default: break
            }

            let answer: RecordedAnswer? = try db.transaction {
                try db.lock("book " + id)
                // A claim whose lock went with a lost connection may have been taken over: then the other write decides.
                guard try IdempotencyLedger.holds(claim, user: user.id, key: key, in: db) else { return nil }
                let answer = try Self.apply(request.method, id: id, document: document, conditions: conditions, by: user,
                                            hash: requestHash, at: clock.now(), changeRetention: changeRetention, in: db)
                try IdempotencyLedger.prune(at: clock.now(), in: db)
                try IdempotencyLedger.record(claim, user: user.id, key: key, answer: answer, in: db)
                if case .holdBeforeCommit(let ms)? = faults.fire(.beforeCommit, for: request)?.action { usleep(useconds_t(ms) * 1000) }
                return answer
            }
            finished = true
            guard let answer else { throw ProblemError(Self.keyInFlight) }
            switch faults.fire(.afterCommit, for: request)?.action {
            case .dropAfterCommit?: return .closeWithoutAnswer
            case .holdAfterCommit(let ms)?: usleep(useconds_t(ms) * 1000)
            default: break
            }
            return .respond(Self.response(for: answer, replayed: false))
        }
    }

    private static let keyReused = Problem.unprocessable(
        "This Idempotency-Key was already used for a different request; use a new key for a new write")
    private static let keyInFlight = Problem(
        status: 409, detail: "A request with this Idempotency-Key is still being processed; retry later")

    /// Checks the preconditions against the current version (RFC 9110
    /// §13.2.2) and writes; the outcome (2xx, 404 or 412) is what the key
    /// will replay. Deleting what is not there is a 404 before any
    /// precondition: there is no resource to hold a condition against.
    private static func apply(_ method: String, id: String, document: JSONObject?, conditions: Preconditions, by user: User,
                              hash: String, at now: Double, changeRetention: TimeInterval,
                              in db: any SQLConnection) throws -> RecordedAnswer {
        let current = try BookStore.record(id, in: db)
        let live = current?.exists == true ? current : nil
        if document == nil && live == nil {
            return RecordedAnswer(requestHash: hash, status: 404, etag: nil,
                                  body: Problem.notFound("There is no book '\(id)'").json.utf8Bytes)
        }
        if case .failed(let field) = conditions.evaluate(method: method, current: live.flatMap { EntityTag(parsing: $0.etag) }) {
            var problem = Problem(status: 412, detail: preconditionDetail(id: id, current: current, failed: field))
            problem.extra = [("current", live?.document.map { .object($0) } ?? .null),
                             ("current_etag", live.map { .string($0.etag) } ?? .null)]
            return RecordedAnswer(requestHash: hash, status: 412, etag: live?.etag, body: problem.json.utf8Bytes)
        }
        let written = try BookStore.write(id, document: document, by: user.id, at: now, changeRetention: changeRetention, in: db)
        guard let document else { return RecordedAnswer(requestHash: hash, status: 204, etag: nil, body: []) }
        return RecordedAnswer(requestHash: hash, status: live == nil ? 201 : 200, etag: written.etag,
                              body: JSONValue.object(document).utf8Bytes)
    }

    private static func preconditionDetail(id: String, current: BookRecord?, failed field: String) -> String {
        guard let current else { return "There is no book '\(id)' yet; create it with If-None-Match: *" }
        guard current.exists else { return "Book '\(id)' no longer exists: it was deleted" }
        if field == "If-None-Match" {
            return "Book '\(id)' already exists (version \(current.etag)); update it with If-Match instead"
        }
        return "Book '\(id)' has changed since that version; its current version is \(current.etag)"
    }

    private static func response(for answer: RecordedAnswer, replayed: Bool) -> HTTPResponse {
        var headers = HTTPHeaders()
        if !answer.body.isEmpty {
            let isProblem = answer.status >= 400
            headers.add("Content-Type", isProblem ? MediaType.problemJSON : MediaType.json)
        }
        if let etag = answer.etag { headers.add("ETag", etag) }
        if replayed { headers.add("Idempotent-Replayed", "true") }
        return HTTPResponse(status: answer.status, headers: headers, body: answer.body)
    }
}
