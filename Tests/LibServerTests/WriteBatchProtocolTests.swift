import Foundation
import LibJSON
import Testing
import TestSupport

/// Protocol v2's batch of writes (`POST /v2/writes`, docs/PROTOCOL.md), on
/// SQLite here and on PostgreSQL under `make test-postgres`.
@Suite struct WriteBatchProtocolTests {
    /// Sends `{"writes": items}` and returns the answer and its results.
    static func batch(_ session: SignedInClient, _ items: [JSONValue]) throws -> (HTTPTestResponse, [JSONValue]) {
        let answer = try session.client.request(
            "POST", "/v2/writes", headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
            body: JSONValue.object(JSONObject([("writes", .array(items))])).serialized())
        return (answer, answer.json?["results"]?.arrayValue ?? [])
    }

    static func update(_ key: String, _ id: String, ifMatch: String, set: JSONValue, seen: JSONValue, strict: Bool = false) -> JSONValue {
        var item = JSONObject([("key", .string(key)), ("path", .string("books/\(id)")), ("op", "update"),
                               ("if_match", .string(ifMatch)), ("set", set), ("seen", seen)])
        if strict { item["strict"] = true }
        return .object(item)
    }

    static func create(_ key: String, _ id: String, _ document: JSONValue) -> JSONValue {
        ["key": .string(key), "path": .string("books/\(id)"), "op": "create", "document": document]
    }

    static func delete(_ key: String, _ id: String, ifMatch: String) -> JSONValue {
        ["key": .string(key), "path": .string("books/\(id)"), "op": "delete", "if_match": .string(ifMatch)]
    }

    @Test func capabilitiesAnnounceTheBatchLimitsWithoutAToken() throws {
        let demo = try DemoServer()
        let answer = try demo.client().request("GET", "/v2/capabilities")
        #expect(answer.status == 200 && answer.header("Cache-Control") == "max-age=86400")
        #expect(answer.json?["protocols"] == ["v1", "v2"])
        #expect(answer.json?["writes"]?["max_items"] == 1000 && answer.json?["writes"]?["max_bytes"] == 1_048_576)
    }

    @Test func aV1OnlyServerHasNoV2Routes() throws {
        let demo = try DemoServer(extraArguments: ["--legacy-protocol"])
        let alice = try demo.signIn("alice")
        #expect(try demo.client().request("GET", "/v2/capabilities").status == 404)
        #expect(try Self.batch(alice, []).0.status == 404)
    }

    /// bob changes copies; alice, against the older version, changes year:
    /// both land, and the answer names bob's change.
    @Test func anUpdateOfOtherFieldsIsMergedOnTheServer() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let seen = try alice.etag(of: "b-7")
        let (bobs, bobResults) = try Self.batch(bob, [Self.update("bob-1", "b-7", ifMatch: seen, set: ["copies": 5], seen: ["copies": 3])])
        #expect(bobs.status == 200 && bobResults.first?["status"] == 200 && bobResults.first?["merged"] == nil)
        let (_, results) = try Self.batch(alice, [Self.update("alice-1", "b-7", ifMatch: seen, set: ["year": 1966], seen: ["year": 1965])])
        let result = try #require(results.first)
        #expect(result["key"] == "alice-1" && result["status"] == 200)
        #expect(result["merged"] == ["fields": ["copies"], "by": ["bob"]])
        #expect(result["document"]?["copies"] == 5 && result["document"]?["year"] == 1966)
        let now = try JSONParser.parse(try alice.get("/v1/books/b-7").body)
        #expect(now["copies"] == 5 && now["year"] == 1966 && now["title"] == "Dune")
        let etagNow = try alice.etag(of: "b-7")
        #expect(result["etag"]?.stringValue == etagNow)
    }

    @Test func aClashOnAFieldItChangesIsA412NamingIt() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let seen = try alice.etag(of: "b-7")
        _ = try Self.batch(bob, [Self.update("bob-1", "b-7", ifMatch: seen, set: ["copies": 5], seen: ["copies": 3])])
        let (_, results) = try Self.batch(alice, [Self.update("alice-1", "b-7", ifMatch: seen, set: ["copies": 1], seen: ["copies": 3])])
        let result = try #require(results.first)
        #expect(result["status"] == 412 && result["problem"]?["clashes"] == ["copies"])
        let etagNow = try alice.etag(of: "b-7")
        #expect(result["current"]?["copies"] == 5 && result["current_etag"]?.stringValue == etagNow)
        #expect(try JSONParser.parse(try alice.get("/v1/books/b-7").body)["copies"] == 5, "never an overwrite")
    }

    @Test func strictUpdatesAndDeletesNeedTheVersionTheySaw() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let seen7 = try alice.etag(of: "b-7"), seen8 = try alice.etag(of: "b-8")
        _ = try Self.batch(bob, [Self.update("bob-7", "b-7", ifMatch: seen7, set: ["copies": 5], seen: ["copies": 3]),
                                 Self.update("bob-8", "b-8", ifMatch: seen8, set: ["copies": 0], seen: [:])])
        let (_, results) = try Self.batch(alice, [
            Self.update("alice-7", "b-7", ifMatch: seen7, set: ["year": 1966], seen: ["year": 1965], strict: true),
            Self.delete("alice-8", "b-8", ifMatch: seen8),
        ])
        #expect(results.map { $0["status"] } == [412, 412])
        #expect(try alice.get("/v1/books/b-8").status == 200, "the delete of a changed book did nothing")
    }

    /// A reader's batch, an invalid book, a key reused for another write:
    /// each item answers for itself and the good ones go through.
    @Test func aBadItemGetsItsOwnAnswerAndTheOthersGoThrough() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), carol = try demo.signIn("carol")
        let seen = try alice.etag(of: "b-1")
        _ = try Self.batch(alice, [Self.create("used", "n-0", ["title": "First"])])
        let (answer, results) = try Self.batch(alice, [
            Self.create("k-1", "n-1", ["title": "One"]),
            Self.create("k-2", "n-2", ["title": 5]),
            Self.create("used", "n-3", ["title": "Another write under an old key"]),
            Self.update("k-4", "b-1", ifMatch: seen, set: ["copies": -1], seen: [:]),
            Self.delete("k-5", "n-404", ifMatch: "\"1-x\""),
            Self.create("k-6", "n-6", ["title": "Six"]),
        ])
        #expect(answer.status == 200)
        #expect(results.map { $0["status"] } == [201, 422, 422, 422, 404, 201])
        #expect(results.map { $0["key"] } == ["k-1", "k-2", "used", "k-4", "k-5", "k-6"])
        #expect(results[1]["problem"]?["detail"]?.stringValue?.contains("title") == true)
        #expect(try alice.get("/v1/books/n-1").status == 200)
        #expect(try alice.get("/v1/books/n-6").status == 200)
        #expect(try alice.get("/v1/books/n-3").status == 404)
        let (readers, refused) = try Self.batch(carol, [Self.create("c-1", "n-9", ["title": "Nine"])])
        #expect(readers.status == 200 && refused.map { $0["status"] } == [403])
        #expect(try alice.get("/v1/books/n-9").status == 404)
    }

    @Test func aRetriedBatchReplaysEachItemAndAppliesNothingTwice() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let seen = try alice.etag(of: "b-7")
        let items = [Self.create("r-1", "n-1", ["title": "One"]),
                     Self.update("r-2", "b-7", ifMatch: seen, set: ["copies": 9], seen: ["copies": 3])]
        let (_, first) = try Self.batch(alice, items)
        let (_, again) = try Self.batch(alice, items)
        #expect(first.map { $0["status"] } == [201, 200] && again.map { $0["status"] } == [201, 200])
        #expect(again.allSatisfy { $0["replayed"] == true } && first.allSatisfy { $0["replayed"] == nil })
        #expect(again.map { $0["etag"] } == first.map { $0["etag"] })
        #expect(try demo.history("b-7", as: alice).count == 2, "one write of b-7, not two")
        #expect(try demo.history("n-1", as: alice).count == 1)
    }

    @Test func aKeyFirstSentAsAV1RequestIsAnotherRequestInABatch() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        #expect(try alice.put("n-1", #"{"title":"One"}"#, create: true, key: "shared").status == 201)
        let (_, results) = try Self.batch(alice, [Self.create("shared", "n-1", ["title": "One"])])
        #expect(results.first?["status"] == 422)
    }

    @Test func itemsApplyInOrderWithinOneBatch() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let (_, results) = try Self.batch(alice, [Self.create("o-1", "n-1", ["title": "One"])])
        let etag = try #require(results.first?["etag"]?.stringValue)
        let (_, more) = try Self.batch(alice, [
            Self.update("o-2", "n-1", ifMatch: etag, set: ["copies": 2], seen: [:]),
            Self.delete("o-3", "n-1", ifMatch: etag),
        ])
        #expect(more.map { $0["status"] } == [200, 412], "the delete met the version the update made")
    }

    @Test func malformedBatchesAre400sNamingWhatIsWrong() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        func refusal(_ body: String) throws -> (Int, String) {
            let answer = try alice.client.request(
                "POST", "/v2/writes", headers: [("Authorization", "Bearer \(alice.token)"), ("Content-Type", "application/json")],
                body: body)
            return (answer.status, answer.problemDetail)
        }
        let cases: [(String, String)] = [
            ("{}", "no 'writes'"),
            (#"{"writes":{}}"#, "'writes' must be an array"),
            (#"{"writes":[],"extra":1}"#, "Unknown member 'extra'"),
            (#"{"writes":[7]}"#, "writes[0] must be an object"),
            (#"{"writes":[{"path":"books/b-1","op":"delete","if_match":"\"1-a\""}]}"#, "writes[0] needs a 'key'"),
            (#"{"writes":[{"key":"a","path":"shelves/1","op":"delete","if_match":"\"1-a\""}]}"#, "writes[0] has a path that is not books/ID"),
            (#"{"writes":[{"key":"a","path":"books/b-1","op":"patch"}]}"#, "unknown op 'patch'"),
            (#"{"writes":[{"key":"a","path":"books/b-1","op":"update","set":{"year":1}}]}"#, "needs 'if_match'"),
            (#"{"writes":[{"key":"a","path":"books/b-1","op":"create","document":{"title":"A"}},{"key":"a","path":"books/b-2","op":"create","document":{"title":"B"}}]}"#,
             "writes[1] reuses the key"),
        ]
        for (body, words) in cases {
            let (status, detail) = try refusal(body)
            #expect(status == 400 && detail.contains(words), "\(body): \(status) \(detail)")
        }
    }

    @Test func aBatchOverTheLimitIsA413NamingIt() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let items = (0..<1001).map { Self.create("big-\($0)", "n-\($0)", ["title": "T"]) }
        let (answer, _) = try Self.batch(alice, items)
        #expect(answer.status == 413 && answer.problemDetail.contains("at most 1000"), "\(answer.status) \(answer.problemDetail)")
        #expect(try alice.get("/v1/books/n-0").status == 404, "nothing of it applied")
    }

    /// Two instances on one database (SQLite file, or PostgreSQL under
    /// `make test-postgres`): a batch sent again through the other instance
    /// replays; a concurrent update of other fields through it merges.
    @Test func twoInstancesBehaveAsOne() throws {
        let demo = try DemoServer()
        let other = try DemoServer(sharing: demo)
        let alice = try demo.signIn("alice"), bobThere = try other.signIn("bob")
        let seen = try alice.etag(of: "b-7")
        let items = [Self.update("two-1", "b-7", ifMatch: seen, set: ["year": 1966], seen: ["year": 1965])]
        _ = try Self.batch(bobThere, [Self.update("bob-1", "b-7", ifMatch: seen, set: ["copies": 4], seen: ["copies": 3])])
        let (_, first) = try Self.batch(alice, items)
        let aliceThere = try other.signIn("alice")
        let (_, replayed) = try Self.batch(aliceThere, items)
        #expect(first.first?["status"] == 200 && first.first?["merged"]?["by"] == ["bob"])
        #expect(replayed.first?["replayed"] == true && replayed.first?["etag"] == first.first?["etag"])
        #expect(try demo.history("b-7", as: alice).count == 3)
    }
}
