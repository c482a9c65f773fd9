import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct IdempotencyProtocolTests {
    @Test func replayReturnsTheSameAnswerWithoutWritingAgain() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let body = #"{"title":"Dune","copies":9}"#
        let first = try alice.put("b-7", body, ifMatch: etag, key: "key-1")
        let replay = try alice.put("b-7", body, ifMatch: etag, key: "key-1")
        #expect(first.status == 200)
        #expect(replay.status == 200)
        #expect(replay.header("ETag") == first.header("ETag"))
        #expect(replay.body == first.body)
        #expect(replay.header("Idempotent-Replayed") == "true")
        #expect(try demo.history("b-7", as: alice).count == 2, "one write, not two")
    }

    @Test func everyAnswerToAWriteEchoesItsKey() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let carol = try demo.signIn("carol")
        let etag = try alice.etag(of: "b-7")
        let answers = [
            ("200", try alice.put("b-7", #"{"title":"A"}"#, ifMatch: etag, key: "echo-1")),
            ("200 replayed", try alice.put("b-7", #"{"title":"A"}"#, ifMatch: etag, key: "echo-1")),
            ("201", try alice.put("b-99", #"{"title":"New"}"#, create: true, key: "echo-2")),
            ("412", try alice.put("b-8", #"{"title":"A"}"#, ifMatch: "\"0-stale\"", key: "echo-3")),
            ("422", try alice.put("b-8", #"{"title":""}"#, ifMatch: try alice.etag(of: "b-8"), key: "echo-4")),
            ("428", try alice.put("b-8", #"{"title":"A"}"#, key: "echo-5")),
            ("403", try carol.put("b-8", #"{"title":"A"}"#, ifMatch: try alice.etag(of: "b-8"), key: "echo-6")),
            ("204", try alice.delete("b-9", ifMatch: try alice.etag(of: "b-9"), key: "echo-7")),
            ("204 replayed", try alice.delete("b-9", ifMatch: try alice.etag(of: "b-10"), key: "echo-7")),
            ("404", try alice.delete("b-404", ifMatch: "\"1-x\"", key: "echo-8")),
        ]
        let keys = ["echo-1", "echo-1", "echo-2", "echo-3", "echo-4", "echo-5", "echo-6", "echo-7", "echo-7", "echo-8"]
        for ((label, answer), key) in zip(answers, keys) {
            #expect(answer.header("Idempotency-Key") == key, "\(label): \(answer.status)")
        }
        #expect(answers[1].1.header("Idempotent-Replayed") == "true")
    }

    @Test func keyReusedWithAnotherBodyIs422() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        #expect(try alice.put("b-7", #"{"title":"A"}"#, ifMatch: etag, key: "key-1").status == 200)
        let reused = try alice.put("b-7", #"{"title":"B"}"#, ifMatch: etag, key: "key-1")
        #expect(reused.status == 422)
        #expect(reused.problemDetail.contains("already used for a different request"))
        #expect(try alice.get("/v1/books/b-7").json?["title"] == "A")
    }

    @Test func sameKeyFromAnotherUserIsANewWrite() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let bob = try demo.signIn("bob")
        let first = try alice.put("b-7", #"{"title":"A"}"#, ifMatch: try alice.etag(of: "b-7"), key: "shared-key")
        let second = try bob.put("b-7", #"{"title":"A"}"#, ifMatch: try first.header("ETag").unwrap(), key: "shared-key")
        #expect(second.status == 200)
        #expect(second.header("Idempotent-Replayed") == nil)
        let writers = try demo.history("b-7", as: alice).dropFirst().map { $0["updated_by"]?.stringValue }
        #expect(writers == [alice.userID, bob.userID])
    }

    @Test func replayOfA412IsThe412() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let first = try alice.put("b-7", #"{"title":"A"}"#, ifMatch: "\"0-stale\"", key: "k")
        let again = try alice.put("b-7", #"{"title":"A"}"#, ifMatch: "\"0-stale\"", key: "k")
        #expect(first.status == 412)
        #expect(again.status == 412)
        #expect(again.body == first.body)
    }

    @Test func secondRequestWhileTheFirstIsInFlightIs409() throws {
        // 20 s in flight: on a loaded machine, seeing the claim and sending the second request took over 5 s.
        let demo = try DemoServer(extraArguments: ["--fault", "delay=20000,method=PUT,times=1"])
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let body = #"{"title":"Slow"}"#
        let firstStatus = Box<Int>()
        let patient = try SignedInClient(client: demo.client(timeout: 90), token: alice.token, userID: alice.userID)
        let thread = Thread {
            let status = (try? patient.put("b-7", body, ifMatch: etag, key: "slow-key").status) ?? -1
            firstStatus.set(status)
        }
        let other = try demo.signIn("alice")
        thread.start()
        // The first request claims its key (a row the server commits), then sits in its in-flight window.
        let claimed = try ProcessState.waitUntil {
            try TestDatabase.query(demo.server.databasePath, "SELECT count(*) FROM idempotency WHERE key = 'slow-key'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        try #require(claimed, "the first request never claimed its key")
        let second = try SignedInClient(client: other.client, token: alice.token, userID: alice.userID)
            .put("b-7", body, ifMatch: etag, key: "slow-key")
        #expect(second.header("Idempotent-Replayed") == nil, "the second request came after the first had finished")
        #expect(second.status == 409)
        #expect(ProcessState.waitUntil(timeout: 90) { firstStatus.get() != nil })
        #expect(firstStatus.get() == 200)
        let third = try other.put("b-7", body, ifMatch: etag, key: "slow-key")
        #expect(third.status == 200)
        #expect(third.header("Idempotent-Replayed") == "true")
        #expect(try demo.history("b-7", as: alice).count == 2)
    }
}

extension Optional {
    func unwrap(sourceLocation: SourceLocation = #_sourceLocation) throws -> Wrapped {
        try #require(self, sourceLocation: sourceLocation)
    }
}

final class Box<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func get() -> T? { lock.lock(); defer { lock.unlock() }; return value }
    func update(_ change: (T?) -> T) { lock.lock(); value = change(value); lock.unlock() }
}
