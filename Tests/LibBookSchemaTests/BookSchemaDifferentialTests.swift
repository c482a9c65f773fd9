import Foundation
import LibBookSchema
import LibJSON
import Testing
import TestSupport

/// LibBookSchema against python3-jsonschema's Draft 2020-12 validator, on
/// generated books (issue 23): both call the same documents valid. One
/// difference is the protocol's on purpose and not generated: JSON Schema
/// counts `1965.0` as an integer, and lib keeps an integer and a fraction
/// apart (`"year": 1965.0` is a 422).
@Suite struct BookSchemaDifferentialTests {
    static let python = #"""
        import json, sys
        from jsonschema import Draft202012Validator
        count = int(sys.argv[2])
        schema = json.loads(open(f"{sys.argv[1]}/{count - 1}", "rb").read())
        validator = Draft202012Validator(schema)
        for n in range(count - 1):
            document = json.loads(open(f"{sys.argv[1]}/{n}", "rb").read())
            print("valid" if validator.is_valid(document) else "invalid")
        """#

    @Test func libBookSchemaAndJSONSchemaAgreeOnGeneratedBooks() throws {
        var random = SeededRandom(seed: 2023)
        let documents = (0..<600).map { _ in Self.book(&random) }
        let answers = try python3Lines(Self.python, inputs: documents.map { Array($0.serialized().utf8) } + [Array(BuiltInBookSchema.text.utf8)])
        try #require(answers.count == documents.count)
        var valid = 0
        for (document, answer) in zip(documents, answers) {
            let problems = BuiltInBookSchema.schema.problems(in: document, id: "b-1")
            #expect(problems.isEmpty == (answer == "valid"), "\(document.serialized()): jsonschema says \(answer), lib says \(problems.map(\.sentence))")
            if answer == "valid" { valid += 1 }
        }
        #expect(valid > 100 && valid < 500, "\(valid) of 600 valid: the generator covers both")
    }

    static func book(_ random: inout SeededRandom) -> JSONValue {
        var object = JSONObject()
        let titles: [JSONValue] = [
            "Dune", "", "x", .string(String(repeating: "é", count: 500)), .string(String(repeating: "😀", count: 501)),
            .string(String(repeating: "e\u{301}", count: 250)), .string(String(repeating: "e\u{301}", count: 251)),
            .string(String(repeating: "a", count: 499) + "\u{1B}"), 42, .null, ["Dune"],
        ]
        // Mostly plausible books, so that both verdicts are common.
        if random.chance(0.95) { object["title"] = random.chance(0.6) ? "Dune" : random.pick(titles) }
        if random.chance(0.5) { object["author"] = random.chance(0.7) ? "Frank Herbert" : random.pick(["Frank Herbert", "", 7, .null, true]) }
        if random.chance(0.5) { object["year"] = random.chance(0.7) ? 1965 : random.pick([1965, -500, 0, 1965.5, "1965", .null, 9_007_199_254_740_993]) }
        if random.chance(0.5) { object["copies"] = random.chance(0.7) ? 3 : random.pick([0, 3, -1, 2.5, "3", false]) }
        if random.chance(0.5) { object["tags"] = random.chance(0.7) ? ["sf"] : random.pick([[], ["sf"], ["sf", "classic"], ["sf", 1], "sf", [.null], [["nested"]]]) }
        if random.chance(0.2) { object["id"] = "b-1" }
        if random.chance(0.05) { object[random.pick(["isbn", "Title", "tags ", "_pending"])] = "extra" }
        return .object(object)
    }
}
