import LibHTTP
import LibJSON
@testable import LibServer
import Testing
import TestSupport

/// The server's rule for a v2 update against an older version
/// (`FieldPrecondition`), on the vectors the client's rule
/// (`WriteIntent.clashes`, LibSyncTests) passes too.
@Suite struct FieldClashVectorTests {
    @Test func theServersRulePassesTheSharedVectors() throws {
        let vectors = try #require(try JSONParser.parse(TestVectors.text("field-clash.json"))["cases"]?.arrayValue)
        #expect(vectors.count >= 14)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let base = try #require(vector["base"]?.objectValue)
            let current = BookRecord(id: "b-1", version: 2, etag: "current", document: try #require(vector["current"]?.objectValue))
            var set = JSONObject()
            var remove: [String] = []
            for change in vector["changes"]?.arrayValue ?? [] {
                let field = try #require(change["field"]?.stringValue)
                if let value = change["value"] { set[field] = value } else { remove.append(field) }
            }
            let update = FieldUpdate(set: set, remove: remove, seen: base, madeAgainst: EntityTag(opaque: "seen"), strict: false)
            let clash = vector["clash"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let decision = FieldPrecondition.decide(update, current: current)
            #expect(decision == (clash.isEmpty ? .apply(merged: true) : .clash(fields: clash)), "\(name)")
            if clash.isEmpty {
                let result = FieldPrecondition.applied(update, to: current.document ?? JSONObject())
                #expect(JSONValue.object(result) == vector["result"], "\(name)")
            }
        }
    }
}
