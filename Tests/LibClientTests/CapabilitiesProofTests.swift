import LibBase
import LibClient
import LibNet
import Testing

/// `LibraryServerProof` on what a server says of itself and on the change
/// feed's waiting answers.
@Suite struct CapabilitiesProofTests {
    @Test func aV2ServerSaysItsLimits() throws {
        let answer = Reply.json(200, #"""
            {"protocols":["v1","v2"],"writes":{"path":"/v2/writes","max_items":5000,"max_bytes":1024},"changes":{"max_wait":60}}
            """#)
        #expect(try LibraryServerProof.capabilities(answer).stored == "v2 1000 1024", "at most lib's largest batch")
        #expect(try LibraryServerProof.longestWait(answer) == 60)
    }

    @Test(arguments: [
        #"{"protocols":["v1"]}"#,
        #"{"protocols":["v1","v2"],"writes":{"path":"/elsewhere","max_items":10,"max_bytes":1024}}"#,
        #"{"protocols":["v1","v2"],"writes":{"path":"/v2/writes","max_items":0,"max_bytes":1024}}"#,
    ])
    func withoutUsableLimitsItIsV1(body: String) throws {
        #expect(try LibraryServerProof.capabilities(Reply.json(200, body)) == .v1Only)
    }

    @Test(arguments: [
        Reply.page(200, "text/html", "<html>Sign in</html>"),
        Reply.json(200, "{}"),
        Reply.json(200, #"{"protocols":"v2"}"#),
    ])
    func aPageThatIsNotTheServersProvesNothing(answer: HTTPResponse) {
        #expect(throws: LibraryServerProof.Doubt.self) { try LibraryServerProof.capabilities(answer) }
    }

    @Test func onlyAProblemDocumentSaysARouteIsMissing() {
        #expect(LibraryServerProof.provesRouteMissing(Reply.problem(404, "No such route")))
        #expect(LibraryServerProof.provesRouteMissing(Reply.problem(405, "Not allowed")))
        #expect(!LibraryServerProof.provesRouteMissing(Reply.page(404, "text/html", "<html>Not here</html>")))
        #expect(!LibraryServerProof.provesRouteMissing(Reply.problem(400, "Bad")))
    }

    @Test func aWaitingFeedAnswerSaysWhetherSomethingChanged() throws {
        #expect(try LibraryServerProof.holdsChanges(Reply.json(200, #"{"items":[{"id":"b-7"}],"next":"c-2"}"#)))
        #expect(try !LibraryServerProof.holdsChanges(Reply.json(200, #"{"items":[],"next":"c-1"}"#)))
        do {
            _ = try LibraryServerProof.holdsChanges(Reply.page(200, "text/html", "<html>Sign in</html>"))
            Issue.record("a portal's page proved a change")
        } catch {
            #expect(error.seen == "200 text/html")
        }
    }
}
