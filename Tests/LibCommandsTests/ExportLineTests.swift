import LibBase
import LibClient
@testable import LibCommands
import LibJSON
import LibSync
import Testing
import TestSupport

/// The lines of `lib export` and `lib import` (issue 48): written in one
/// fixed form, read back strictly, each problem named; and what importing
/// them asks of the outbox (`ImportPlan`).
@Suite struct ExportLineTests {
    let rules = BookRules.builtIn

    func problem(_ text: String) -> String? {
        do { _ = try ExportLine.parse(text, rules: rules); return nil } catch { return error.message }
    }

    @Test func aCachedBookIsWrittenWithItsFieldsByNameAndReadBackTheSame() throws {
        let body = try JSONParser.parse(#"{"year":1965,"title":"Dune","id":"b-7","tags":["sf"],"author":"Frank Herbert"}"#)
        let line = try #require(ExportLine(cached: "books/b-7", body: body, etag: "\"3-ab\""))
        let text = line.json.serialized()
        #expect(text == #"{"path":"books/b-7","id":"b-7","fields":{"author":"Frank Herbert","tags":["sf"],"title":"Dune","year":1965},"etag":"\"3-ab\""}"#)
        #expect(try ExportLine.parse(text, rules: rules) == line)
        #expect(line.document == body.objectValue)
    }

    @Test func aDeletedBookHasNoFieldsAndNoETag() throws {
        let line = ExportLine(id: "b-20", fields: nil, etag: nil)
        #expect(line.json.serialized() == #"{"path":"books/b-20","id":"b-20","deleted":true}"#)
        #expect(try ExportLine.parse(line.json.serialized(), rules: rules) == line)
        #expect(line.isDeleted && line.document == nil)
    }

    /// Server text is hostile: control characters and bidi overrides leave as `\u` escapes.
    @Test func controlCharactersInAFieldAreEscaped() throws {
        let body = JSONValue.object(JSONObject([("id", .string("b-1")), ("title", .string("A\u{1B}[2J\u{202E}B\u{7F}"))]))
        let text = try #require(ExportLine(cached: "books/b-1", body: body, etag: nil)).json.serialized()
        #expect(text.contains(#""title":"A\u001b[2J\u202eB\u007f""#), "\(text)")
        #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F })
    }

    @Test func aCachedCopyThatIsNotItsPathsBookIsNoLine() throws {
        #expect(ExportLine(cached: "books/b-1", body: try JSONParser.parse(#"{"id":"b-2","title":"x"}"#), etag: nil) == nil)
        #expect(ExportLine(cached: "books/b-1", body: .array([]), etag: nil) == nil)
        #expect(ExportLine(cached: "books/b-1", body: nil, etag: nil) == nil)
    }

    @Test func pathAndETagMayBeLeftOut() throws {
        let line = try ExportLine.parse(#"{"id":"b-1","fields":{"title":"Emma"}}"#, rules: rules)
        #expect(line == ExportLine(id: "b-1", fields: JSONObject([("title", .string("Emma"))]), etag: nil))
        #expect(try ExportLine.parse(#"{"id":"b-1","fields":{"title":"Emma"},"etag":null}"#, rules: rules).etag == nil)
    }

    @Test(arguments: [
        ("not json", "not JSON"),
        ("[1]", "a line must be a JSON object, not array"),
        (#"{"fields":{"title":"x"}}"#, #"no "id""#),
        (#"{"id":"../x","fields":{"title":"x"}}"#, #""id" must be 1 to 128 letters"#),
        (#"{"id":7,"fields":{"title":"x"}}"#, #""id" must be 1 to 128 letters, digits, '-', '.', '_' or '~', not 7"#),
        (#"{"path":"users/b-1","id":"b-1","fields":{"title":"x"}}"#, #""path" must be "books/b-1""#),
        (#"{"path":"books/b-2","id":"b-1","fields":{"title":"x"}}"#, #""path" must be "books/b-1""#),
        (#"{"id":"b-1","fields":{"title":"x"},"colour":1}"#, "unknown member 'colour'"),
        (#"{"id":"b-1"}"#, #"no "fields""#),
        (#"{"id":"b-1","fields":[]}"#, #""fields" must be an object, not array"#),
        (#"{"id":"b-1","fields":{"id":"b-1","title":"x"}}"#, #""fields" holds "id""#),
        (#"{"id":"b-1","fields":{"title":"x"},"etag":3}"#, #""etag" must be a string, not 3"#),
        (#"{"id":"b-1","deleted":"yes"}"#, #""deleted" must be true or false"#),
        (#"{"id":"b-1","deleted":true,"fields":{"title":"x"}}"#, #"a deleted book ("deleted": true) has no "fields""#),
        (#"{"id":"b-1","fields":{"title":"","year":"1999"}}"#, "books/b-1: 'title'"),
        (#"{"id":"b-1","fields":{"title":"x","colour":"red"}}"#, "'colour' is not a field of a book"),
        (#"{"id":"b-1","fields":{"author":"x"}}"#, "'title' is required"),
    ])
    func aBadLineIsNamedForWhatIsWrong(line: String, expected: String) {
        let message = problem(line)
        #expect(message?.contains(expected) == true, "\(line): \(message ?? "accepted")")
    }

    @Test func aFileNamesEveryBadLineByNumberSkipsBlankOnesAndRefusesABookTwice() {
        let text = """
            {"id":"b-1","fields":{"title":"One"}}

            {"id":"b-2","fields":{"title":"Two","year":"x"}}
            {"id":"b-1","fields":{"title":"Again"}}\r
            {"id":"b-3","deleted":true}

            """
        let file = ImportFile(text: text, rules: rules)
        #expect(file.lines.map(\.id) == ["b-1", "b-3"])
        #expect(file.problems.count == 2)
        #expect(file.problems[0].hasPrefix("line 3: books/b-2: 'year' must be an integer"), "\(file.problems)")
        #expect(file.problems[1] == "line 4: books/b-1 is also on line 1; a book may be named once")
    }

    @Test func aLongListOfProblemsIsCut() {
        let file = ImportFile(text: String(repeating: "x\n", count: 25), rules: rules)
        #expect(file.problems.count == 25)
        #expect(file.report.split(separator: "\n").count == ImportFile.problemsShown + 1)
        #expect(file.report.hasSuffix("… and 5 more"))
    }

    /// The plan against a store: creates what is absent, changes only the
    /// fields that differ (pending writes counted), deletes, and nothing
    /// for lines equal to what the device has.
    @Test func thePlanQueuesOnlyWhatDiffers() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        try store.cache.save([("books/b-1", #"{"id":"b-1","title":"One","year":1}"#, "\"e1\""),
                              ("books/b-2", #"{"id":"b-2","title":"Two"}"#, "\"e2\""),
                              ("books/b-3", #"{"id":"b-3","title":"Three"}"#, "\"e3\"")], at: 0)
        // A pending write already makes b-2 what the file says.
        try store.outbox.enqueue(Outbox.NewWrite(path: "books/b-2", intent: .change(FieldChanges(
            from: JSONObject([("id", .string("b-2")), ("title", .string("Two"))]),
            to: JSONObject([("id", .string("b-2")), ("title", .string("Deux"))]))), baseBody: nil, baseETag: "\"e2\""), now: 0)
        let file = ImportFile(text: """
            {"id":"b-1","fields":{"title":"One","year":2},"etag":"\\"e1\\""}
            {"id":"b-2","fields":{"title":"Deux"}}
            {"id":"b-3","deleted":true}
            {"id":"b-4","fields":{"title":"Four"}}
            {"id":"b-5","deleted":true}
            """, rules: rules)
        #expect(file.problems.isEmpty, "\(file.problems)")
        let plan = try ImportPlan(file.lines, cache: store.cache, outbox: store.outbox)
        #expect((plan.creates, plan.updates, plan.deletes, plan.unchanged) == (1, 1, 1, 2))
        #expect(plan.writes.map(\.path) == ["books/b-1", "books/b-3", "books/b-4"])
        let update = plan.writes[0]
        #expect(update.intent == .change(FieldChanges(from: JSONObject([("year", .integer(1))]), to: JSONObject([("year", .integer(2))]))))
        #expect(update.baseETag == "\"e1\"" && update.baseBody == #"{"id":"b-1","title":"One","year":1}"#)
        #expect(plan.writes[1].intent == .delete && plan.writes[1].baseETag == "\"e3\"")
        #expect(plan.writes[2].intent == .create(JSONObject([("id", .string("b-4")), ("title", .string("Four"))])))
    }

    /// A line exported at another version than the cached one: the fields
    /// it changes are left out of the base (unknown), so the server
    /// applies them only where nobody else changed them.
    @Test func aLineAtAnotherVersionLeavesTheFieldsItChangesOutOfTheBase() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("s.sqlite"))
        try store.cache.save("books/b-7", body: #"{"id":"b-7","title":"Dune (bob)","year":1965}"#, etag: "\"2-b\"", at: 0)
        let line = try ExportLine.parse(#"{"id":"b-7","fields":{"title":"Dune (alice)","year":1965},"etag":"\"1-a\""}"#, rules: rules)
        let plan = try ImportPlan([line], cache: store.cache, outbox: store.outbox)
        let write = try #require(plan.writes.first)
        #expect(write.baseETag == "\"1-a\"")
        #expect(write.baseBody == #"{"id":"b-7","year":1965}"#)
        #expect(write.intent.fieldNames == ["title"])
    }
}
