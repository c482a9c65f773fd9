import LibBase
import LibClient
import LibNet
import Testing

/// `LibraryServerProof` on the answers that settle writes, and the schema
/// fetch's failures.
@Suite struct LibraryServerProofTests {
    @Test func aWriteAnswerWithoutItsKeyProvesNothing() {
        let response = Reply.json(200, Reply.dune, [("ETag", "\"2\"")])
        #expect(LibraryServerProof.doubtAboutWrite(response, key: "k-1", isPut: true, id: "b-7", rules: .builtIn)
                == "200 application/json without this write's Idempotency-Key")
    }

    @Test func aPutAnsweredWithoutTheBookProvesNothing() {
        let response = Reply.page(204, "application/json", "").withKey("k-1")
        #expect(LibraryServerProof.doubtAboutWrite(response, key: "k-1", isPut: true, id: "b-7", rules: .builtIn)
                == "204 application/json to a PUT")
    }

    @Test func aPutAnsweredWithTheBookAndItsKeyIsTheServers() {
        let response = Reply.json(200, Reply.dune, [("ETag", "\"2\"")]).withKey("k-1")
        #expect(LibraryServerProof.doubtAboutWrite(response, key: "k-1", isPut: true, id: "b-7", rules: .builtIn) == nil)
    }

    @Test func aDeleteNeedsOnlyItsKey() {
        let response = Reply.page(204, "text/plain", "").withKey("k-1")
        #expect(LibraryServerProof.doubtAboutWrite(response, key: "k-1", isPut: false, id: "b-7", rules: .builtIn) == nil)
    }

    @Test func aSchemaFetchThatFailsSaysHow() {
        let server = ScriptedTransport()
        server.on("GET", "/v1/schemas/book", Reply.problem(503, "down"))
        let api = ServerAPI(transport: server, origin: ScriptedTransport.origin, token: "t")
        do {
            _ = try BookSchemaFetch.conditional(api, etag: nil, timeout: 1)
            Issue.record("no failure")
        } catch .transport(let failure) {
            guard case .serverError(503, _, _) = failure.kind else { Issue.record("\(failure)"); return }
        } catch {
            Issue.record("\(error)")
        }
        #expect(server.requests.first?.timeout == .milliseconds(1000), "its own budget")
    }
}

extension HTTPResponse {
    func withKey(_ key: String) -> HTTPResponse {
        var copy = self
        copy.headers.add("Idempotency-Key", key)
        return copy
    }
}
