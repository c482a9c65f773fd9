@testable import LibJSON

/// LibJSON's parser on any bytes: it never crashes, and what it accepts
/// survives the trip through the serializer: parse → serialize → parse gives
/// the same value, the compact text is then stable, and the indented text
/// reads back as the same value too.
enum JSONRoundTripProperty: FuzzProperty {
    static func check(_ input: [UInt8]) -> String? {
        let value: JSONValue
        do {
            value = try JSONParser.parse(input)
        } catch {
            guard error.line >= 1, error.column >= 1, !error.reason.isEmpty else {
                return "the syntax error has no position or reason: \(error)"
            }
            return nil
        }
        let text = value.serialized()
        guard let again = try? JSONParser.parse(text) else { return "the serialized text does not parse: \(text)" }
        guard again == value else { return "parse(serialize(v)) != v for \(text)" }
        guard sameOrder(again, value) else { return "member order changed for \(text)" }
        guard again.serialized() == text else { return "serialization is not stable: \(text) vs \(again.serialized())" }
        guard let pretty = try? JSONParser.parse(value.prettyPrinted()), pretty == value else {
            return "the indented text does not read back as the value: \(value.prettyPrinted())"
        }
        return nil
    }

    /// `JSONValue ==` ignores member order; the protocol keeps it, so check it too.
    private static func sameOrder(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && zip(x.members, y.members).allSatisfy { sameOrder($0.value, $1.value) }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameOrder($0, $1) }
        default:
            return true
        }
    }
}
