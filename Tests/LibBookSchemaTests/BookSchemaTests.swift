import LibBookSchema
import LibJSON
import Testing

/// The one book schema and its validator: today's messages for the built-in
/// rules, a schema that adds a field, and schemas that cannot be applied.
@Suite struct BookSchemaTests {
    func problems(_ json: String, schema: BookSchema = BuiltInBookSchema.schema) throws -> [String] {
        schema.problems(in: try JSONParser.parse(json), id: "b-7").map(\.sentence)
    }

    @Test(arguments: [
        (#"{"title":"Dune"}"#, [String]()),
        (#"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":0,"tags":["sf"]}"#, []),
        (#"{"title":"Dune","colour":"red"}"#, ["'colour' is not a field of a book; the fields are id, title, author, year, copies, tags"]),
        (#"{"title":"Dune","year":"1965"}"#, ["'year' must be an integer, not string"]),
        (#"{"title":"Dune","year":1965.5}"#, ["'year' must be an integer, not number"]),
        (#"{"title":""}"#, ["'title' must be 1 to 500 characters long (it has 0)"]),
        (#"{"title":3}"#, ["'title' must be a string, not integer"]),
        (#"{"author":"Frank Herbert"}"#, ["'title' is required"]),
        (#"{"title":"Dune","copies":-1}"#, ["'copies' must be 0 or more (not -1)"]),
        (#"{"title":"Dune","tags":["sf",3]}"#, ["'tags' must be an array of strings (item 1 is integer)"]),
        (#"{"title":"Dune","tags":"sf"}"#, ["'tags' must be an array of strings, not string"]),
        (#"{"title":"Dune","id":"b-8"}"#, ["'id' must be \"b-7\", the id in the path"]),
        (#"["title"]"#, ["a book must be a JSON object, not array"]),
    ])
    func theBuiltInRulesSayWhatIsWrong(json: String, expected: [String]) throws {
        #expect(try problems(json) == expected)
    }

    @Test func lengthsCountCharactersNotBytes() throws {
        let title = String(repeating: "é", count: 500)
        #expect(try problems(#"{"title":"\#(title)"}"#).isEmpty)
        #expect(try problems(#"{"title":"\#(title)é"}"#) == ["'title' must be 1 to 500 characters long (it has 501)"])
    }

    @Test func aSchemaThatAddsAFieldAcceptsItAndChecksItsType() throws {
        var schema = try JSONParser.parse(BuiltInBookSchema.text).objectValue!
        var properties = schema["properties"]!.objectValue!
        properties["isbn"] = ["type": "string", "minLength": 10]
        schema["properties"] = .object(properties)
        let extended = try BookSchema(text: JSONValue.object(schema).serialized())
        #expect(extended.fields.last == "isbn")
        #expect(try problems(#"{"title":"Dune","isbn":"9780441013593"}"#, schema: extended).isEmpty)
        #expect(try problems(#"{"title":"Dune","isbn":42}"#, schema: extended) == ["'isbn' must be a string, not integer"])
        #expect(try problems(#"{"title":"Dune","isbn":"123"}"#, schema: extended) == ["'isbn' must be at least 10 characters long (it has 3)"])
        #expect(try problems(#"{"title":"Dune","isbn":"9780441013593"}"#) == ["'isbn' is not a field of a book; the fields are id, title, author, year, copies, tags"])
    }

    @Test(arguments: [
        (#"{"type":"object","properties":{"isbn":{"type":"string","pattern":"^[0-9]+$"}}}"#, "#/properties/isbn/pattern: the keyword 'pattern' is not supported"),
        (#"{"type":"array"}"#, "the book schema must have \"type\": \"object\""),
        (#"{"type":"object","properties":{"year":{"type":"int"}}}"#, "#/properties/year/type: unknown type 'int'"),
        ("{", "the book schema is not valid JSON"),
    ])
    func aSchemaThatCannotBeAppliedIsRefusedNamingWhy(text: String, message: String) {
        #expect(throws: SchemaError.self) { try BookSchema(text: text) }
        do { _ = try BookSchema(text: text) } catch { #expect(error.message.hasPrefix(message), "\(error.message)") }
    }

    @Test func enumConstMaximumAndItemCountsHaveMessages() throws {
        let schema = try BookSchema(text: #"""
            {"type":"object","properties":{"title":{"type":"string"},"format":{"enum":["paper","ebook"]},
             "shelf":{"const":"A"},"rating":{"type":"integer","minimum":1,"maximum":5},
             "tags":{"type":"array","maxItems":1,"items":{"type":"string","maxLength":3}}},"additionalProperties":true}
            """#)
        #expect(try problems(#"{"format":"scroll","shelf":"B","rating":6,"tags":["a","b"],"other":1}"#, schema: schema) == [
            "'format' must be one of \"paper\", \"ebook\"", "'shelf' must be \"A\"", "'rating' must be 5 or less (not 6)",
            "'tags' must have at most 1 item (it has 2)",
        ])
        #expect(try problems(#"{"tags":["long"]}"#, schema: schema) == ["'tags' item 0 must be at most 3 characters long (it has 4)"])
    }
}
