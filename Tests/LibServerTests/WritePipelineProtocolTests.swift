import Foundation
import LibJSON
import Testing
import TestSupport

/// A v1 `PUT`/`DELETE` is a batch of one through the pipeline `POST
/// /v2/writes` takes (issue 46): the same 412, the same 404, the same rule
/// for replaying a key's answer, each in its protocol's layout. On SQLite
/// here and on PostgreSQL under `make test-postgres`.
@Suite struct WritePipelineProtocolTests {
    /// The problem's members v1 and v2 share (v2 adds `clashes`).
    static func shared(_ problem: JSONValue?) -> [String: JSONValue?] {
        Dictionary(uniqueKeysWithValues: ["type", "title", "status", "detail"].map { ($0, problem?[$0]) })
    }

    @Test func aStaleWriteGetsTheSame412ByEitherProtocol() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), bob = try demo.signIn("bob")
        let seen = try alice.etag(of: "b-7")
        let bobs = try bob.put("b-7", #"{"title":"Dune","author":"Frank Herbert","year":1965,"copies":9}"#, ifMatch: seen)
        try #require(bobs.status == 200)
        let v1 = try alice.put("b-7", #"{"title":"Dune Messiah"}"#, ifMatch: seen)
        let (_, v2) = try WriteBatchProtocolTests.batch(alice, [
            WriteBatchProtocolTests.delete("d-7", "b-7", ifMatch: seen),
            WriteBatchProtocolTests.update("u-7", "b-7", ifMatch: seen, set: ["year": 1966], seen: ["year": 1965], strict: true),
        ])
        #expect(v1.status == 412 && v2.map { $0["status"] } == [412, 412])
        let detail = "Book 'b-7' has changed since that version; its current version is \(try bobs.header("ETag").unwrap())"
        #expect(v1.problemDetail == detail)
        for result in v2 {
            #expect(Self.shared(v1.json) == Self.shared(result["problem"]))
            #expect(result["problem"]?["clashes"] == [])
            #expect(result["current"] == v1.json?["current"] && result["current"]?["copies"] == 9)
            #expect(result["current_etag"] == v1.json?["current_etag"])
            #expect(result["etag"]?.stringValue == v1.header("ETag"))
        }
    }

    /// A create of a book that exists: the same 412, each protocol saying
    /// how it updates a book instead.
    @Test func aCreateOfAnExistingBookIsThe412OfEitherProtocol() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let v1 = try alice.put("b-7", #"{"title":"Another Dune"}"#, create: true)
        let (_, v2) = try WriteBatchProtocolTests.batch(alice, [WriteBatchProtocolTests.create("c-7", "b-7", ["title": "Another Dune"])])
        #expect(v1.status == 412 && v2.first?["status"] == 412)
        #expect(v1.problemDetail == "Book 'b-7' already exists (version \(etag)); update it with If-Match instead")
        #expect(v2.first?["problem"]?["detail"]?.stringValue == "Book 'b-7' already exists (version \(etag)); update it instead")
        #expect(v2.first?["current"] == v1.json?["current"] && v2.first?["current_etag"]?.stringValue == etag)
    }

    /// A key's first answer is kept, a 404 too, and replayed to its retry;
    /// a key used by one protocol is another request to the other.
    @Test func eitherProtocolReplaysItsKeyAndRefusesTheOthers() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let missing = WriteBatchProtocolTests.delete("v2-key", "n-404", ifMatch: "\"1-x\"")
        let v1 = try alice.delete("n-404", ifMatch: "\"1-x\"", key: "v1-key")
        let v1Again = try alice.delete("n-404", ifMatch: "\"1-x\"", key: "v1-key")
        let (_, v2) = try WriteBatchProtocolTests.batch(alice, [missing])
        let (_, v2Again) = try WriteBatchProtocolTests.batch(alice, [missing])
        #expect(v1.status == 404 && v1Again.status == 404 && v1Again.header("Idempotent-Replayed") == "true")
        #expect(v1Again.body == v1.body && v1.header("Idempotent-Replayed") == nil)
        #expect(v2.first?["status"] == 404 && v2.first?["replayed"] == nil)
        #expect(v2Again.first?["status"] == 404 && v2Again.first?["replayed"] == true)
        #expect(Self.shared(v1.json) == Self.shared(v2.first?["problem"]))

        let v1WithV2Key = try alice.delete("n-404", ifMatch: "\"1-x\"", key: "v2-key")
        #expect(v1WithV2Key.status == 422)
        #expect(v1WithV2Key.problemDetail == "This Idempotency-Key was already used for a different request; use a new key for a new write")
        let (_, v2WithV1Key) = try WriteBatchProtocolTests.batch(alice, [WriteBatchProtocolTests.delete("v1-key", "n-404", ifMatch: "\"1-x\"")])
        #expect(v2WithV1Key.first?["status"] == 422)
    }
}
