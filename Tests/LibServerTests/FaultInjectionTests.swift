import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct FaultInjectionTests {
    @Test func droppedAnswerAfterCommitThenRetryIsAppliedOnce() throws {
        let demo = try DemoServer(extraArguments: ["--fault", "drop-after-commit,first-per-key"])
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        #expect(throws: HTTPTestClientError.self) {
            _ = try alice.put("b-7", #"{"title":"Lost answer"}"#, ifMatch: etag, key: "k-lost")
        }
        let retry = try demo.signIn("alice")
        let answer = try SignedInClient(client: retry.client, token: alice.token, userID: alice.userID)
            .put("b-7", #"{"title":"Lost answer"}"#, ifMatch: etag, key: "k-lost")
        #expect(answer.status == 200, "the retry gets the recorded answer, not a false 412")
        #expect(answer.header("Idempotent-Replayed") == "true")
        #expect(try demo.history("b-7", as: retry).count == 2)
    }

    @Test func droppedBeforeWriteAppliesNothing() throws {
        let demo = try DemoServer(extraArguments: ["--fault", "drop-before-write,times=1"])
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        #expect(throws: HTTPTestClientError.self) {
            _ = try alice.put("b-7", #"{"title":"Never"}"#, ifMatch: etag, key: "k1")
        }
        let again = try demo.signIn("alice")
        #expect(try demo.history("b-7", as: again).count == 1)
        #expect(try again.put("b-7", #"{"title":"Now"}"#, ifMatch: etag, key: "k1").status == 200)
    }

    @Test func status503WithRetryAfterThenRecovers() throws {
        let demo = try DemoServer(extraArguments: ["--fault", "status=503,retry-after=7,times=2,path=/v1/me"])
        let alice = try demo.signIn("alice")
        for _ in 0..<2 {
            let answer = try alice.get("/v1/me")
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") == "7")
        }
        #expect(try alice.get("/v1/me").status == 200)
    }

    /// Faults come only from flags: the variable that once turned them on
    /// does nothing alone (issue 23).
    @Test func theEnvironmentAloneNeverTurnsFaultsOn() throws {
        let demo = try DemoServer(environment: ProcessInfo.processInfo.environment.merging(
            ["LIB_SERVER_FAULTS": "status=503,retry-after=7,path=/v1/me"]) { $1 })
        let alice = try demo.signIn("alice")
        #expect(try alice.get("/v1/me").status == 200)
        #expect(try alice.get("/v1/me").status == 200)
    }

    @Test func truncatedAnswerLosesTheConnectionMidBody() throws {
        let demo = try DemoServer(extraArguments: ["--fault", "truncate,path=/v1/books/b-7"])
        let alice = try demo.signIn("alice")
        #expect(throws: HTTPTestClientError.self) { _ = try alice.get("/v1/books/b-7") }
    }

    @Test func faultsCanBeChangedWhileRunningWithFaultControl() throws {
        let demo = try DemoServer(extraArguments: ["--fault-control"])
        let control = try demo.client()
        let set = try control.request("PUT", "/_test/faults", body: "status=503,retry-after=1")
        #expect(set.status == 200)
        #expect(set.json?["rules"] == ["status=503,retry-after=1"])
        let client = try demo.client()
        #expect(try client.request("GET", "/v1/me").status == 503)
        #expect(try control.request("DELETE", "/_test/faults").status == 200)
        #expect(try client.request("GET", "/v1/me").status == 401)
        let bad = try control.request("PUT", "/_test/faults", body: "explode")
        #expect(bad.status == 400)
        #expect(bad.problemDetail.hasPrefix("invalid fault 'explode': unknown action 'explode'"))
    }
}
