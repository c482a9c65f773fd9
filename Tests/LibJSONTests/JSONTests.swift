import LibJSON
import Testing

@Suite struct JSONTests {
    @Test func keepsKeyOrderAndIntegerness() throws {
        let value = try JSONParser.parse(#"{"title":"Dune","year":1965,"rating":4.5,"tags":["sf"],"x":null,"ok":true}"#)
        #expect(value.objectValue?.keys == ["title", "year", "rating", "tags", "x", "ok"])
        #expect(value["year"] == .integer(1965))
        #expect(value["rating"] == .double(4.5))
        #expect(value.serialized() == #"{"title":"Dune","year":1965,"rating":4.5,"tags":["sf"],"x":null,"ok":true}"#)
    }

    @Test(arguments: [
        ("", "unexpected end of input at line 1, column 1"),
        ("{", "unexpected end of input at line 1, column 2"),
        (#"{"a":1,"a":2}"#, "duplicate key 'a' at line 1, column 8"),
        ("[1,]", "unexpected character ']' at line 1, column 4"),
        ("{\n  \"a\": tru\n}", "invalid literal (expected true) at line 2, column 8"),
        ("01", "leading zero in number at line 1, column 2"),
        (#""\x""#, #"invalid escape '\x' at line 1, column 2"#),
        ("\"a\nb\"", "control character in string at line 1, column 3"),
        ("1 2", "unexpected text after the JSON value at line 1, column 3"),
        ("1e999", "number out of range at line 1, column 1"),
    ])
    func rejectsInvalidTextSayingWhereAndWhy(text: String, message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.description == message) }
    }

    @Test func escapesRoundTrip() throws {
        let original: JSONValue = ["s": .string("quote\" back\\ nl\n tab\t ctl\u{01} é 😀")]
        let text = original.serialized()
        #expect(text == #"{"s":"quote\" back\\ nl\n tab\t ctl\u0001 é 😀"}"#)
        #expect(try JSONParser.parse(text) == original)
        #expect(try JSONParser.parse(#""\ud83d\ude00 \u00e9""#) == .string("😀 é"))
    }

    @Test func prettyPrintsForPeople() {
        let value: JSONValue = ["title": "Dune", "tags": ["sf", "classic"], "empty": [:]]
        #expect(value.prettyPrinted() == "{\n  \"title\": \"Dune\",\n  \"tags\": [\n    \"sf\",\n    \"classic\"\n  ],\n  \"empty\": {}\n}")
    }

    @Test func wholeDoublesStayFractions() throws {
        #expect(JSONValue.double(2).serialized() == "2.0")
        #expect(try JSONParser.parse("2.0") == .double(2))
    }

    @Test func rejectsDeepNesting() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func objectEqualityIgnoresOrder() {
        #expect(JSONValue(dictionaryLiteral: ("a", 1), ("b", 2)) == JSONValue(dictionaryLiteral: ("b", 2), ("a", 1)))
    }
}
