import LibJSON
import LibSync
import Testing
import TestSupport

/// The client's rule for a write sent against a newer version than the one
/// it was made on (`WriteIntent.clashes`), on the vectors the server's rule
/// (`FieldPrecondition`, LibServerTests) passes too.
@Suite struct FieldClashVectorTests {
    @Test func theClientsRulePassesTheSharedVectors() throws {
        let vectors = try #require(try JSONParser.parse(TestVectors.text("field-clash.json"))["cases"]?.arrayValue)
        #expect(vectors.count >= 14)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let base = try #require(vector["base"]?.objectValue)
            let current = try #require(vector["current"]?.objectValue)
            var changes = FieldChanges()
            for change in vector["changes"]?.arrayValue ?? [] {
                changes[try #require(change["field"]?.stringValue)] = .some(change["value"])
            }
            let clash = vector["clash"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let intent = WriteIntent.change(changes)
            #expect(intent.clashes(base: base, target: current) == !clash.isEmpty, "\(name)")
            if clash.isEmpty {
                #expect(intent.applied(to: current).map(JSONValue.object) == vector["result"], "\(name)")
            }
        }
    }
}
