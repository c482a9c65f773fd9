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
        let change: WriteItem.Change = isDelete ? .delete(conditions) : .put(try jsonObject(request), conditions)
        let item = WriteItem(key: key, id: id, change: change,
                             requestHash: IdempotencyLedger.requestHash(method: request.method, path: request.path, body: request.body))
        let pipeline = writePipeline(by: user, wire: .v1)
        if let problem = pipeline.problemBeforeWriting(item) { throw ProblemError(problem) }

        // One connection from the claim to the answer: on PostgreSQL the
        // claim lives as long as that connection's lock on the key.
        return try store.withConnection { db in
            var claimed: String?
            var finished = false
            defer { KeyClaimHolder.letGo(claimed, in: db, handedOver: finished) }
            let claim: String
            switch pipeline.keyClaim(try IdempotencyLedger.claimForRequest(user: user.id, key: key, requestHash: item.requestHash,
                                                                           at: clock.now(), in: db)) {
            case .ours(let id): claim = id
            case .settled(let settled):
                pipeline.count(settled)
                return .respond(Self.response(for: settled))
            }
            claimed = claim
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
            let settled = try pipeline.write([(item, .claimed(claim))], on: db) {
                if case .holdBeforeCommit(let ms)? = faults.fire(.beforeCommit, for: request)?.action {
                    try db.flush()  // held open with all it writes sent, the feed's lock taken: only the COMMIT waits
                    usleep(useconds_t(ms) * 1000)
                }
            }
            finished = true
            switch faults.fire(.afterCommit, for: request)?.action {
            case .dropAfterCommit?: return .closeWithoutAnswer
            case .holdAfterCommit(let ms)?: usleep(useconds_t(ms) * 1000)
            default: break
            }
            return .respond(Self.response(for: settled[0]))
        }
    }

    /// A write's pipeline for this user and protocol.
    func writePipeline(by user: User, wire: WriteWire) -> WritePipeline {
        WritePipeline(store: store, user: user, wire: wire, schema: bookSchema, clock: clock, changeRetention: changeRetention,
                      outcomes: writeOutcomes)
    }

    /// v1's answer is the recorded answer itself, or the problem.
    private static func response(for settled: WritePipeline.Settled) -> HTTPResponse {
        switch settled {
        case .refused(let problem):
            return problem.response
        case .answered(let answer, let replayed):
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
}
