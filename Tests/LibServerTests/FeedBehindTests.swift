import Foundation
import LibJSON
import Testing
import TestSupport

/// `Lib-Feed-Behind` (docs/PROTOCOL.md, "Behind"): a feed page and a batch
/// answer say how many books changed after the cursor other than by the
/// device that asks (`Lib-Device`), so a client shows `↓N` without asking
/// again (SQLite here, PostgreSQL under `make test-postgres`).
@Suite struct FeedBehindTests {
    static func batch(_ session: SignedInClient, device: String, since: String, _ items: [JSONValue]) throws -> HTTPTestResponse {
        try session.client.request(
            "POST", "/v2/writes", headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json"),
                                            ("Lib-Device", device), ("Lib-Feed-Since", since)],
            body: JSONValue.object(JSONObject([("writes", .array(items))])).serialized())
    }

    static func update(_ session: SignedInClient, _ id: String, copies: Int) throws -> JSONValue {
        WriteBatchProtocolTests.update(UUID().uuidString, id, ifMatch: try session.etag(of: id), set: ["copies": .integer(Int64(copies))],
                                       seen: ["copies": .null])
    }

    @Test func aBatchAnswerCountsWhatOthersChangedAfterTheCursorNotTheDevicesOwn() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let cursor = try alice.changes(since: nil).next
        // Another device (bob's) changes three books, one of them twice.
        for (id, copies) in [("b-1", 5), ("b-2", 6), ("b-1", 7), ("b-3", 8)] {
            #expect(try Self.batch(bob, device: "bobs-phone", since: cursor, [Self.update(bob, id, copies: copies)]).status == 200)
        }
        // alice's laptop writes two books of its own: not counted for it.
        let answer = try Self.batch(alice, device: "alices-laptop", since: cursor,
                                    [Self.update(alice, "b-4", copies: 1), Self.update(alice, "b-5", copies: 2)])
        #expect(answer.status == 200)
        #expect(answer.header("Lib-Feed-Behind") == "3", "b-1, b-2, b-3: each book once, alice's own two not counted")
        // The same user on another device sees alice's laptop's writes too.
        let other = try Self.batch(alice, device: "alices-phone", since: cursor, [Self.update(alice, "b-6", copies: 3)])
        #expect(other.header("Lib-Feed-Behind") == "5")
        // Without a device or a cursor of this database: nothing said.
        let none = try Self.batch(alice, device: "", since: cursor, [Self.update(alice, "b-7", copies: 4)])
        #expect(none.status == 200 && none.header("Lib-Feed-Behind") == nil)
        let foreign = try Self.batch(alice, device: "alices-laptop", since: "abcdef-1", [Self.update(alice, "b-8", copies: 4)])
        #expect(foreign.status == 200 && foreign.header("Lib-Feed-Behind") == nil)
    }

    @Test func aFeedPageSaysWhatIsLeftAfterIt() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let cursor = try alice.changes(since: nil).next
        for id in ["b-1", "b-2", "b-3", "b-4"] {
            #expect(try Self.batch(bob, device: "bobs-phone", since: cursor, [Self.update(bob, id, copies: 9)]).status == 200)
        }
        let page = try alice.get("/v1/changes?limit=1&since=\(cursor)", headers: [("Lib-Device", "alices-laptop")])
        #expect(page.status == 200)
        #expect(page.header("Lib-Feed-Behind") == "3", "one change in the page, three after it")
        let bobs = try bob.get("/v1/changes?limit=1&since=\(cursor)", headers: [("Lib-Device", "bobs-phone")])
        #expect(bobs.header("Lib-Feed-Behind") == "0", "all the rest are the asking device's own")
        #expect(try alice.get("/v1/changes?limit=1&since=\(cursor)").header("Lib-Feed-Behind") == nil, "no device named: not counted")
    }
}
