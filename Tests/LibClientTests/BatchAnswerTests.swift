import LibBase
import LibClient
import LibJSON
import LibNet
import Testing

/// How `LibraryWriter` reads an answer to `POST /v2/writes`: a result settles
/// a write only when it is the library server's, item by item; anything
/// else keeps every write of the batch pending.
@Suite struct BatchAnswerTests {
    struct NoTransport: HTTPTransport {
        func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse { HTTPResponse(status: 599) }
    }

    let writer = LibraryWriter(api: ServerAPI(transport: NoTransport(), origin: ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080),
                                            token: "t"))
    let items = [
        WriteItem(key: "k-1", path: "books/n-1", intent: .create(JSONObject([("title", "New")])), ifMatch: nil),
        WriteItem(key: "k-2", path: "books/b-7", intent: .delete, ifMatch: "\"1-a\""),
    ]

    func answer(_ status: Int, _ type: String, _ body: String) -> BatchAnswer {
        writer.answer(HTTPResponse(status: status, headers: ["Content-Type": type], body: Array(body.utf8)), toBatch: items)
    }

    static func isNotTheServers(_ answer: BatchAnswer) -> Bool {
        guard case .failed(.temporary(let failure)) = answer, case .notFromLibraryServer = failure.kind else { return false }
        return true
    }

    @Test func theServersResultsSettleEachItem() throws {
        let answer = answer(200, "application/json", #"""
            {"results":[{"key":"k-1","status":201,"etag":"\"1-b\"","document":{"id":"n-1","title":"New"}},
                        {"key":"k-2","status":412,"etag":"\"2-c\"","problem":{"status":412,"detail":"changed"},
                         "current":{"id":"b-7","title":"Dune"},"current_etag":"\"2-c\""}]}
            """#)
        guard case .answered(let answers) = answer, answers.count == 2 else { Issue.record("\(answer)"); return }
        guard case .applied(_, let etag, _) = answers[0], etag == "\"1-b\"" else { Issue.record("\(answers[0])"); return }
        guard case .conflict(_, let theirs) = answers[1], theirs == "\"2-c\"" else { Issue.record("\(answers[1])"); return }
    }

    @Test(arguments: [
        (200, "text/html", "<html>Sign in</html>"),
        (200, "application/json", #"{"results":[]}"#),
        (200, "application/json", #"{"results":[{"key":"other","status":201},{"key":"k-2","status":204}]}"#),
        // A 201 without the book or its ETag proves nothing.
        (200, "application/json", #"{"results":[{"key":"k-1","status":201},{"key":"k-2","status":204}]}"#),
        // A portal's or a proxy's 404 page is not a v1 server's answer.
        (404, "text/html", "<html>Not here</html>"),
        (405, "text/plain", "no"),
        (400, "application/json", "{}"),
    ])
    func anAnswerThatProvesNothingKeepsEveryWrite(status: Int, type: String, body: String) {
        let answer = answer(status, type, body)
        #expect(Self.isNotTheServers(answer), "\(answer)")
    }

    @Test func aV1ServersProblemDocumentMeansNoV2() {
        let answer = answer(404, "application/problem+json", #"{"type":"about:blank","title":"Not Found","status":404}"#)
        guard case .notSupported = answer else { Issue.record("\(answer)"); return }
    }
}
