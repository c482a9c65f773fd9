import Foundation
import LibBookSchema
import LibHTTPServer
import LibJSON
import LibStore

extension LibraryService {
    /// `GET /v2/capabilities`: that this server speaks protocol v2, and the
    /// batch limits. Anyone may ask (a client asks once and keeps the answer).
    func capabilities() -> HTTPResponse {
        var response = HTTPResponse.json(200, [
            "protocols": .array([.string("v1"), .string("v2")]),
            "writes": [
                "path": "/v2/writes",
                "max_items": .integer(Int64(batchLimits.maxItems)),
                "max_bytes": .integer(Int64(batchLimits.maxBytes)),
                "field_preconditions": true,
            ],
            "changes": [
                "path": "/v1/changes",
                "max_wait": .integer(Int64(ChangeWaiters.maxWaitSeconds)),
            ],
        ])
        response.headers.set("Cache-Control", "max-age=86400")
        return response
    }

    /// `POST /v2/writes`: the items in order, one transaction for the whole
    /// batch (one commit), each item's outcome and its idempotency record
    /// written together. A failed item does not undo the others; a retried
    /// batch replays each recorded item and applies nothing twice.
    func writeBatch(_ request: HTTPRequest, user: User) throws -> HTTPReply {
        guard request.body.count <= batchLimits.maxBytes else {
            throw ProblemError(Self.tooLarge("The batch is \(request.body.count) bytes; this server takes at most \(batchLimits.maxBytes) bytes in one batch"))
        }
        let items = try WriteBatch.items(in: jsonObject(request))
        guard items.count <= batchLimits.maxItems else {
            throw ProblemError(Self.tooLarge("The batch has \(items.count) writes; this server takes at most \(batchLimits.maxItems) in one batch"))
        }
        guard user.role == .librarian else {
            let refused = Problem.forbidden("\(user.username) is a reader: only librarians may change books")
            return .respond(Self.batchAnswer(items.map { BatchResult(key: $0.key, problem: refused) }))
        }
        // Checked before the transaction, as v1 checks a PUT's body: a
        // create's document against the schema.
        var results: [BatchResult?] = items.map { item -> BatchResult? in
            guard case .create(let document) = item.intent else { return nil }
            let problems = bookSchema.problems(in: document, id: item.id)
            guard !problems.isEmpty else { return nil }
            return BatchResult(key: item.key, problem: Self.invalidBook(problems))
        }

        let keys = items.map(\.key)
        switch faults.fire(.beforeWrite, for: request, keys: keys)?.action {
        case .dropBeforeWrite?: return .closeWithoutAnswer
        case .delay(let ms)?: usleep(useconds_t(ms) * 1000)
        default: break
        }
        try store.write { db in
            try IdempotencyLedger.prune(at: clock.now(), in: db)
            // Every book of the batch locked first, in one order, so that
            // two batches never wait for each other in a cycle.
            for id in Set(items.map(\.id)).sorted() { try db.lock("book " + id) }
            for (index, item) in items.enumerated() where results[index] == nil {
                results[index] = try settle(item, by: user, in: db)
            }
            if case .holdBeforeCommit(let ms)? = faults.fire(.beforeCommit, for: request, keys: keys)?.action { usleep(useconds_t(ms) * 1000) }
        }
        switch faults.fire(.afterCommit, for: request, keys: keys)?.action {
        case .dropAfterCommit?: return .closeWithoutAnswer
        case .holdAfterCommit(let ms)?: usleep(useconds_t(ms) * 1000)
        default: break
        }
        return .respond(Self.batchAnswer(results.compactMap { $0 }))
    }

    /// One item, in the batch's transaction: its recorded result when its
    /// key has one, else applied now and recorded with its outcome.
    private func settle(_ item: BatchItem, by user: User, in db: any SQLConnection) throws -> BatchResult {
        switch try IdempotencyLedger.claim(user: user.id, key: item.key, requestHash: item.requestHash, holding: .transaction, at: clock.now(), in: db) {
        case .replay(let answer):
            return BatchResult(key: item.key, recorded: answer, replayed: true)
        case .keyReusedWithAnotherRequest:
            return BatchResult(key: item.key, problem: .unprocessable(
                "This key was already used for a different write; use a new key for a new write"))
        case .inFlight:
            return BatchResult(key: item.key, problem: Problem(
                status: 409, detail: "A request with this key is still being processed; retry later"))
        case .claimed(let claim):
            switch try apply(item, by: user, in: db) {
            case .recorded(let answer):
                try IdempotencyLedger.record(claim, user: user.id, key: item.key, answer: answer, in: db)
                return BatchResult(key: item.key, recorded: answer, replayed: false)
            case .refused(let problem):
                // Not an outcome to keep: the same write may pass against a later version.
                try IdempotencyLedger.release(claim, user: user.id, key: item.key, in: db)
                return BatchResult(key: item.key, problem: problem)
            }
        }
    }

    private enum ItemOutcome {
        /// What the key replays from now on.
        case recorded(RecordedAnswer)
        /// A problem that depends on the version the write met, not kept for the key.
        case refused(Problem)
    }

    private func apply(_ item: BatchItem, by user: User, in db: any SQLConnection) throws -> ItemOutcome {
        let hash = item.requestHash
        let live = try BookStore.record(item.id, in: db).flatMap { $0.exists ? $0 : nil }
        func changed(_ detail: String, clashes: [String]) -> ItemOutcome {
            var problem = Problem(status: 412, detail: detail)
            problem.extra = [("clashes", .array(clashes.map { .string($0) }))]
            let current: [(String, JSONValue)] = [("current", live?.document.map { .object($0) } ?? .null),
                                                  ("current_etag", live.map { .string($0.etag) } ?? .null)]
            return .recorded(RecordedAnswer(requestHash: hash, status: 412, etag: live?.etag,
                                            body: BatchResult.body(problem: problem, beside: current)))
        }
        func written(_ document: JSONObject?, status: Int, merged: MergeNote? = nil) throws -> ItemOutcome {
            let record = try BookStore.write(item.id, document: document, by: user.id, at: clock.now(), changeRetention: changeRetention, in: db)
            return .recorded(RecordedAnswer(requestHash: hash, status: status, etag: document == nil ? nil : record.etag,
                                            body: BatchResult.body(document: document, merged: merged)))
        }
        switch item.intent {
        case .create(let document):
            if let live {
                return changed("Book '\(item.id)' already exists (version \(live.etag)); update it instead", clashes: [])
            }
            return try written(BookValidation.normalized(document, id: item.id), status: 201)
        case .delete:
            guard let live, let ifMatch = item.ifMatch else {
                return .recorded(RecordedAnswer(requestHash: hash, status: 404, etag: nil,
                                                body: BatchResult.body(problem: .notFound("There is no book '\(item.id)'"))))
            }
            guard ifMatch.opaque == live.etag else {
                return changed("Book '\(item.id)' has changed since that version; its current version is \(live.etag)", clashes: [])
            }
            return try written(nil, status: 204)
        case .update(let set, let remove, let seen):
            guard let live, let current = live.document, let ifMatch = item.ifMatch else {
                return changed("Book '\(item.id)' no longer exists: it was deleted", clashes: item.changedFields)
            }
            switch FieldPrecondition.decide(ifMatch: ifMatch, current: live, changes: item.changedFields, seen: seen, set: set,
                                            strict: item.strict) {
            case .clash(let fields):
                let detail = fields.isEmpty
                    ? "Book '\(item.id)' has changed since that version; its current version is \(live.etag)"
                    : "Book '\(item.id)' has changed since that version: someone else changed \(fields.joined(separator: ", "))"
                return changed(detail, clashes: fields)
            case .apply(let merged):
                let document = FieldPrecondition.applied(set: set, remove: remove, to: current)
                let problems = bookSchema.problems(in: document, id: item.id)
                guard problems.isEmpty else { return .refused(Self.invalidBook(problems)) }
                let note = merged ? try MergeNote.since(ifMatch, book: item.id, in: db) : nil
                return try written(BookValidation.normalized(document, id: item.id), status: 200, merged: note)
            }
        }
    }

    private static func invalidBook(_ problems: [FieldProblem]) -> Problem {
        .unprocessable("The book is invalid: " + problems.map(\.sentence).joined(separator: "; "), problems: problems)
    }

    private static func tooLarge(_ detail: String) -> Problem {
        Problem(status: 413, detail: detail)
    }

    private static func batchAnswer(_ results: [BatchResult]) -> HTTPResponse {
        var response = HTTPResponse.json(200, ["results": .array(results.map(\.json))])
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}

/// One item's result in the answer to a batch: its key, status and ETag,
/// then what is recorded beside them (document or problem, `current` on a
/// 412, how it was merged), and whether it was replayed.
struct BatchResult {
    let key: String
    let status: Int
    let etag: String?
    let members: JSONObject
    let replayed: Bool

    init(key: String, recorded answer: RecordedAnswer, replayed: Bool) {
        self.key = key
        status = answer.status
        etag = answer.etag
        members = (try? JSONParser.parse(answer.body))?.objectValue ?? JSONObject()
        self.replayed = replayed
    }

    init(key: String, problem: Problem) {
        self.key = key
        status = problem.status
        etag = nil
        members = JSONObject([("problem", problem.json)])
        replayed = false
    }

    var json: JSONValue {
        var object = JSONObject([("key", .string(key)), ("status", .integer(Int64(status)))])
        if let etag { object["etag"] = .string(etag) }
        for (name, value) in members { object[name] = value }
        if replayed { object["replayed"] = true }
        return .object(object)
    }

    /// What is recorded for a write that was applied.
    static func body(document: JSONObject?, merged: MergeNote?) -> [UInt8] {
        var object = JSONObject()
        if let document { object["document"] = .object(document) }
        if let merged { object["merged"] = merged.json }
        return JSONValue.object(object).utf8Bytes
    }

    /// What is recorded for a 404 or a 412.
    static func body(problem: Problem, beside members: [(String, JSONValue)] = []) -> [UInt8] {
        JSONValue.object(JSONObject([("problem", problem.json)] + members)).utf8Bytes
    }
}
