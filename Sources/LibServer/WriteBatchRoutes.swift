import Foundation
import LibBase
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
        var pipeline = writePipeline(by: user, wire: .v2)
        pipeline.device = FeedBehind.device(of: request)
        if !MassChangeCheck.isConfirmed(request.headers[MassChangeGuard.confirmHeader]) { pipeline.massChangeGuard = massChangeGuard }
        // Checked before the transaction, as v1 checks a PUT's body: a create's document against the schema.
        var results: [BatchResult?] = items.map { item in pipeline.problemBeforeWriting(item).map { BatchResult(key: item.key, problem: $0) } }
        let toWrite = items.indices.filter { results[$0] == nil }
        let keys = items.map(\.key)
        switch faults.fire(.beforeWrite, for: request, keys: keys)?.action {
        case .dropBeforeWrite?: return .closeWithoutAnswer
        case .delay(let ms)?: usleep(useconds_t(ms) * 1000)
        default: break
        }
        let settled = try store.withConnection { db in
            try pipeline.write(toWrite.map { (items[$0], .claimHere) }, on: db) {
                if case .holdBeforeCommit(let ms)? = faults.fire(.beforeCommit, for: request, keys: keys)?.action {
                    try db.flush()  // held open with all it writes sent, the feed's lock taken: only the COMMIT waits
                    usleep(useconds_t(ms) * 1000)
                }
            }
        }
        for (index, outcome) in zip(toWrite, settled) { results[index] = BatchResult(key: items[index].key, settled: outcome) }
        switch faults.fire(.afterCommit, for: request, keys: keys)?.action {
        case .dropAfterCommit?: return .closeWithoutAnswer
        case .holdAfterCommit(let ms)?: usleep(useconds_t(ms) * 1000)
        default: break
        }
        var answer = Self.batchAnswer(results.compactMap { $0 })
        if let behind = try behind(request, device: pipeline.device) { answer.headers.set(FeedBehind.behindHeader, String(behind)) }
        return .respond(answer)
    }

    /// What the device is behind by after its batch, when it gave a cursor
    /// of this database (`Lib-Feed-Since`) and named itself.
    private func behind(_ request: HTTPRequest, device: String?) throws -> Int? {
        guard let device, let since = request.headers[FeedBehind.sinceHeader].flatMap(ChangeCursor.init(parsing:)) else { return nil }
        return try store.read { db in
            let state = try ChangeLog.state(in: db)
            guard since.epoch == state.epoch, since.seq >= state.horizon, since.seq <= state.newest else { return nil }
            return try ChangeLog.behind(after: since.seq, device: device, in: db)
        }
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

    init(key: String, settled: WritePipeline.Settled) {
        switch settled {
        case .answered(let answer, let replayed): self.init(key: key, recorded: answer, replayed: replayed)
        case .refused(let problem): self.init(key: key, problem: problem)
        }
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
