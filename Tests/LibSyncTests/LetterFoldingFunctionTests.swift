import LibStore
@testable import LibSync
import Testing
import TestSupport

/// The index folds letters through a SQL function written in Swift
/// (`LetterFolding.function`) where it used twelve nested `replace`s: the two
/// give the same text for every kind of value a book's title, author or tags
/// can be, so search finds what it found before.
@Suite struct LetterFoldingFunctionTests {
    static let values = [
        "'Søren''s Straße'", "'ÆSA ŁUKASZ œuvre Đorđe ẞ'", "'plain ASCII'", "''", "'é and ø and 日本'",
        "NULL", "42", "4.5", "json_extract('{\"t\":\"Œ\"}', '$.t')", "json_extract('{\"t\":[\"ø\"]}', '$.t')",
    ]

    @Test func theFunctionFoldsAsTheReplacesDo() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("fold.sqlite"))
        try LetterFolding.define(on: db)
        for value in Self.values {
            let row = try #require(try db.query(
                "SELECT \(LetterFolding.sql(value)) AS replaced, \(LetterFolding.function)(\(value)) AS called").first)
            #expect(row["replaced"] == row["called"], "\(value)")
        }
        #expect(try db.scalar("SELECT \(LetterFolding.function)('Søren Straße Æsa')")?.text == "Soren Strasse AEsa")
        #expect(try db.scalar("SELECT \(LetterFolding.function)(NULL)") == .null)
    }

    /// Bodies whose tags the index reads: plain, folded letters, JSON
    /// escapes, empty, not an array, not JSON.
    static let bodies = [
        #"{"title":"T","tags":["generated"]}"#, #"{"title":"Søren","author":"Æsa","tags":["Søren Straße","ÆSA","x,y"]}"#,
        #"{"tags":["line\nbreak","quote\"d","back\\slash","tab\tx","\u00f8re","\u0041b"]}"#,
        #"{"tags":[]}"#, #"{"tags":"not an array"}"#, #"{"tags":[1,"a",["b"]]}"#, "{}", "not JSON",
    ]

    @Test func theIndexedColumnsHaveTheSameWordsAsTheReplacesGive() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("fold.sqlite"))
        try LetterFolding.define(on: db)
        for body in Self.bodies {
            let quoted = "'" + body.replacingOccurrences(of: "'", with: "''") + "'"
            let before = try #require(try db.query("SELECT \(LibraryIndexSchema.columns(quoted))").first)
            let now = try #require(try db.query("SELECT \(LibraryIndexSchema.columnsFoldedByFunction(quoted))").first)
            #expect(before[0] == now[0] && before[1] == now[1], "\(body)")
            #expect(Self.words(before[2].text) == Self.words(now[2].text), "\(body): \(before[2]) \(now[2])")
        }
        #expect(Self.words(TagWords.words(#"["line\nbreak","\u00f8re"]"#)) == ["line", "break", "ore"])
    }

    /// Words as FTS5's unicode61 tokenizer splits them.
    static func words(_ text: String?) -> [String] { SearchQuery.words(text ?? "") }

    @Test func aSecondDefinitionOnTheSameConnectionChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("fold.sqlite"))
        try LetterFolding.define(on: db)
        try LetterFolding.define(on: db)
        #expect(try db.scalar("SELECT \(LetterFolding.function)('Łukasz')")?.text == "Lukasz")
    }
}
