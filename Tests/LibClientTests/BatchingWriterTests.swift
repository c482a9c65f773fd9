import LibBase
import LibClient
import LibJSON
import LibNet
import Testing

/// `BatchingWriter`, the v2 write policy, against a scripted server: the
/// protocol learnt once and remembered, batches within the server's bytes,
/// halves of a batch whose answer was too large to read, v1 when the server
/// has no batches, and batch answers read item by item only once proven.
@Suite struct BatchingWriterTests {
    let server = ScriptedTransport()
    var api: ServerAPI { ServerAPI(transport: server, origin: ScriptedTransport.origin, token: "t") }

    /// What the account's store was told.
    final class Memory {
        var remembered: [ServerCapabilities] = []
        var forgotten = 0

        func memory(knowing known: ServerCapabilities?) -> BatchingWriter.ProtocolMemory {
            BatchingWriter.ProtocolMemory(known: known, remember: { self.remembered.append($0) }, forget: { self.forgotten += 1 })
        }
    }

    static func v2(items: Int = 1000, bytes: Int = 1 << 20) -> ServerCapabilities {
        ServerCapabilities(batchWrites: ServerCapabilities.BatchLimits(maxItems: items, maxBytes: bytes))
    }

    static let capabilities = Reply.json(200, #"""
        {"protocols":["v1","v2"],"writes":{"path":"/v2/writes","max_items":500,"max_bytes":65536}}
        """#)

    static func create(_ n: Int, onlyAsV1: Bool = false) -> BatchingWriter.Write {
        let document = JSONObject([("id", .string("n-\(n)")), ("title", "New")])
        return BatchingWriter.Write(item: WriteItem(key: "k-\(n)", path: "books/n-\(n)", intent: .create(document), ifMatch: nil),
                                    document: { document }, onlyAsV1: onlyAsV1)
    }

    /// The keys of each batch the server was sent, in order.
    var batches: [[String]] {
        server.requests.filter { $0.method == "POST" }.map { request in
            (try? JSONParser.parse(request.body))?["writes"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
        }
    }

    /// Answers each batch's items as the library server does, with the
    /// status `status` gives an item's key (201: created).
    func answerBatches(_ status: @escaping @Sendable (String) -> Int = { _ in 201 }) {
        server.on("POST", "/v2/writes") { request in
            let writes = (try? JSONParser.parse(request.body))?["writes"]?.arrayValue ?? []
            let results = writes.map { write -> JSONValue in
                let key = write["key"]?.stringValue ?? ""
                let code = status(key)
                var result = JSONObject([("key", .string(key)), ("status", .integer(Int64(code)))])
                switch code {
                case 200...299:
                    result["etag"] = "\"1-a\""
                    result["document"] = write["document"]
                case 412:
                    result["problem"] = ["status": 412, "detail": "changed"]
                    result["current"] = ["id": "n-2", "title": "Theirs"]
                    result["current_etag"] = "\"2-b\""
                default:
                    result["problem"] = ["status": .integer(Int64(code)), "detail": "no"]
                }
                return .object(result)
            }
            return Reply.json(200, JSONValue.object(JSONObject([("results", .array(results))])).serialized())
        }
    }

    static func isApplied(_ reply: BatchingWriter.Reply) -> Bool {
        if case .answered(.applied) = reply { return true } else { return false }
    }

    static func doubt(_ reply: BatchingWriter.Reply) -> String? {
        guard case .answered(.temporary(let failure)) = reply, case .notFromLibraryServer(let seen) = failure.kind else { return nil }
        return seen
    }

    static func status(_ reply: BatchingWriter.Reply) -> Int? {
        guard case .answered(.temporary(let failure)) = reply, case .serverError(let status, _, _) = failure.kind else { return nil }
        return status
    }

    @Test func theProtocolIsLearntOnceAndRemembered() {
        server.on("GET", "/v2/capabilities", Self.capabilities)
        let memory = Memory()
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: nil))
        #expect(writer.prepare() == nil)
        #expect(memory.remembered == [Self.v2(items: 500, bytes: 65536)])
        #expect(writer.wireProtocol == "v2" && writer.batchLimit == 500)

        var next = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: memory.remembered.first))
        #expect(next.prepare() == nil)
        #expect(server.targets == ["/v2/capabilities"], "the next push asks nothing")
        #expect(next.wireProtocol == "v2" && next.batchLimit == 500)
    }

    @Test func nothingIsSentWhenTheProtocolCouldNotBeLearnt() {
        server.on("GET", "/v2/capabilities", Reply.page(404, "text/html", "<html>Sign in</html>"))
        let memory = Memory()
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: nil))
        #expect(Self.doubt(writer.prepare()!) == "404 text/html")
        #expect(memory.remembered.isEmpty)

        server.on("GET", "/v2/capabilities", Reply.problem(401, "Sign in again"))
        guard case .answered(.unauthorized)? = writer.prepare() else { Issue.record("not unauthorized"); return }
    }

    @Test func writesAreGroupedWithinTheServersBytes() throws {
        answerBatches()
        let itemBytes = Self.create(1).item.json.utf8Bytes.count + 1
        // The envelope and two writes fit, a third does not.
        let budget = 16 + 2 * itemBytes + itemBytes / 2
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2(bytes: budget)))
        _ = writer.prepare()
        let replies = writer.send((1...5).map { Self.create($0) })
        #expect(replies.count == 5 && replies.allSatisfy(Self.isApplied))
        #expect(batches == [["k-1", "k-2"], ["k-3", "k-4"], ["k-5"]])
        #expect(server.requests.allSatisfy { $0.body.count <= budget })
    }

    @Test func aWriteLargerThanTheServersBytesGoesAlone() {
        answerBatches()
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2(bytes: 40)))
        _ = writer.prepare()
        #expect(writer.send([Self.create(1), Self.create(2)]).allSatisfy(Self.isApplied))
        #expect(batches == [["k-1"], ["k-2"]])
    }

    @Test func aBatchWhoseAnswerIsTooLargeIsHalvedDownToOneWrite() {
        server.on("POST", "/v2/writes") { request throws(TransportFailure) in
            let writes = (try? JSONParser.parse(request.body))?["writes"]?.arrayValue ?? []
            guard writes.count == 1, let write = writes.first else {
                throw TransportFailure(kind: .answerTooLarge(limit: 100), endpoint: ScriptedTransport.origin)
            }
            return Reply.json(200, JSONValue.object(JSONObject([("results", [
                ["key": write["key"] ?? .null, "status": 201, "etag": "\"1-a\"", "document": write["document"] ?? .null],
            ])])).serialized())
        }
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()))
        _ = writer.prepare()
        let replies = writer.send((1...4).map { Self.create($0) })
        #expect(replies.count == 4 && replies.allSatisfy(Self.isApplied), "\(replies)")
        #expect(batches.map(\.count) == [4, 2, 1, 1, 2, 1, 1])
        #expect(writer.batchLimit == 1, "the rest of the push sends one write a request")
    }

    @Test func aSingleWriteWhoseAnswerIsTooLargeStaysPending() {
        server.on("POST", "/v2/writes") { _ throws(TransportFailure) in
            throw TransportFailure(kind: .answerTooLarge(limit: 100), endpoint: ScriptedTransport.origin)
        }
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()))
        _ = writer.prepare()
        let replies = writer.send([Self.create(1)])
        guard replies.count == 1, case .answered(.temporary(let failure)) = replies[0], case .answerTooLarge = failure.kind else {
            Issue.record("\(replies)"); return
        }
        #expect(batches == [["k-1"]])
    }

    @Test func a413KeepsEveryWriteAndForgetsTheLimits() {
        server.on("POST", "/v2/writes", Reply.problem(413, "The batch is too large"))
        let memory = Memory()
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: Self.v2()))
        _ = writer.prepare()
        let replies = writer.send([Self.create(1), Self.create(2), Self.create(3)])
        #expect(replies.map(Self.status) == [413, 413, 413])
        #expect(batches.count == 1 && memory.forgotten == 1, "learnt again at the next push")
    }

    @Test(arguments: [404, 405])
    func aServerWithoutBatchesGetsV1Writes(status: Int) {
        server.on("GET", "/v2/capabilities", Reply.problem(404, "No such route"))
        server.on("PUT", "/v1/books/", { request in
            let key = request.headers["Idempotency-Key"] ?? ""
            let id = request.url.split(separator: "/").last.map(String.init) ?? ""
            return Reply.json(201, #"{"id":"\#(id)","title":"New"}"#, [("ETag", "\"1-a\""), ("Idempotency-Key", key)])
        })
        let memory = Memory()
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: nil))
        #expect(writer.prepare() == nil)
        #expect(memory.remembered == [.v1Only] && writer.wireProtocol == "v1" && writer.batchLimit == 1)
        #expect(writer.send([Self.create(1), Self.create(2)]).allSatisfy(Self.isApplied))

        // A server that no longer has batches: the same writes as v1.
        server.on("POST", "/v2/writes", Reply.problem(status, "No such route"))
        var remembered = BatchingWriter(api: api, rules: .builtIn, memory: memory.memory(knowing: Self.v2()))
        _ = remembered.prepare()
        #expect(remembered.send([Self.create(3), Self.create(4)]).allSatisfy(Self.isApplied))
        #expect(memory.forgotten == 1 && remembered.wireProtocol == "v1")
        #expect(server.targets.filter { $0 != "/v2/capabilities" }
                == ["/v1/books/n-1", "/v1/books/n-2", "/v2/writes", "/v1/books/n-3", "/v1/books/n-4"])
    }

    @Test(arguments: [
        #"{"results":[{"key":"k-1","status":201,"etag":"\"1-a\"","document":{"id":"n-1","title":"New"}}]}"#,
        #"{"results":[{"key":"k-1","status":201},{"key":"k-2","status":201}]}"#,
        #"{"results":[{"key":"k-2","status":422},{"key":"k-1","status":422}]}"#,
        #"{"results":[{"key":"k-1","status":201,"etag":"\"1-a\"","document":{"id":"n-9","title":"New"}},{"key":"k-2","status":422}]}"#,
        #"{"results":[{"key":"k-1","status":302},{"key":"k-2","status":422}]}"#,
        "{}",
    ])
    func aBatchAnswerThatFailsTheProofIsADoubtForEveryWrite(body: String) {
        server.on("POST", "/v2/writes", Reply.json(200, body))
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()))
        _ = writer.prepare()
        let replies = writer.send([Self.create(1), Self.create(2)])
        #expect(replies.count == 2 && replies.allSatisfy { Self.doubt($0) != nil }, "\(replies)")
    }

    @Test func eachItemOfABatchHasItsOwnAnswer() {
        answerBatches { ["k-1": 201, "k-2": 412, "k-3": 422, "k-4": 409, "k-5": 201][$0] ?? 500 }
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()))
        _ = writer.prepare()
        let replies = writer.send((1...5).map { Self.create($0) })
        guard replies.count == 5 else { Issue.record("\(replies)"); return }
        #expect(Self.isApplied(replies[0]) && Self.isApplied(replies[4]))
        guard case .answered(.conflict(let theirs, let etag)) = replies[1] else { Issue.record("\(replies[1])"); return }
        #expect(theirs == #"{"id":"n-2","title":"Theirs"}"# && etag == "\"2-b\"")
        guard case .answered(.rejected(let problem)) = replies[2] else { Issue.record("\(replies[2])"); return }
        #expect(problem == "no")
        #expect(Self.status(replies[3]) == 409 && replies[3].stopsSending)
    }

    @Test func aWriteThatOnlyGoesAsV1IsSentBetweenBatches() {
        answerBatches()
        server.on("PUT", "/v1/books/n-2", Reply.json(201, #"{"id":"n-2","title":"New"}"#, [("ETag", "\"1-a\""), ("Idempotency-Key", "k-2")]))
        var writer = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()))
        _ = writer.prepare()
        #expect(writer.send([Self.create(1), Self.create(2, onlyAsV1: true), Self.create(3)]).allSatisfy(Self.isApplied))
        #expect(server.targets == ["/v2/writes", "/v1/books/n-2", "/v2/writes"])
    }

    @Test func nothingStartsAtTheDeadlineOrOnceAskedToStop() {
        var late = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: nil), deadline: 10, clock: { 10 })
        guard case .notSent(.outOfTime)? = late.prepare() else { Issue.record("sent"); return }

        var stopped = BatchingWriter(api: api, rules: .builtIn, memory: Memory().memory(knowing: Self.v2()), deadline: 10,
                                     clock: { 9 }, stopRequested: { true })
        _ = stopped.prepare()
        let replies = stopped.send([Self.create(1), Self.create(2)])
        guard replies.count == 1, case .notSent(.stopRequested) = replies[0] else { Issue.record("\(replies)"); return }
        #expect(server.requests.isEmpty)
    }
}
