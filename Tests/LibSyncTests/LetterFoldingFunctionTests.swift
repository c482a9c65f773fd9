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

    @Test func aSecondDefinitionOnTheSameConnectionChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.file("fold.sqlite"))
        try LetterFolding.define(on: db)
        try LetterFolding.define(on: db)
        #expect(try db.scalar("SELECT \(LetterFolding.function)('Łukasz')")?.text == "Lukasz")
    }
}
