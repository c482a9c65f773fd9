@testable import LibCLI
import Testing

/// Every line fits its terminal (issue 37): cells cut and wrapped between
/// words, a table too narrow for its columns leaves the droppable ones
/// out, a hint's command is never broken, and lib's own typography is ASCII
/// in a locale that is not UTF-8.

@Test func aCellIsCutAfterAWholeWordAndWrappedBetweenWords() {
    #expect(TextTable.truncate("The Remains of the Day", to: 14) == "The Remains…")
    #expect(TextTable.truncate("Supercalifragilistic", to: 8) == "Superca…", "one long word: cut inside it")
    #expect(TextTable.wrap("The Remains of the Day (2nd ed.)", to: 12) == ["The Remains", "of the Day", "(2nd ed.)"])
    #expect(TextTable.wrap("alice@127.0.0.1:19501 and more", to: 10) == ["alice@127.", "0.0.1:1950", "1 and more"],
            "a word longer than the column is the only one cut")
}

@Test func aTableTooNarrowForItsColumnsLeavesTheDroppableOnesOut() {
    var table = TextTable([.init("ID", canShrink: false), .init("TITLE", minimumWidth: 12),
                           .init("AUTHOR", minimumWidth: 10, dropOrder: 2), .init("YEAR", canShrink: false, dropOrder: 1)])
    table.append(["01JEXAMPLE0000000000000001", "Children of Dune", "Frank Herbert", "1976"])
    table.wrapsCells = true
    let narrow = table.render(width: 40)
    #expect(narrow == """
        ID                          TITLE
        01JEXAMPLE0000000000000001  Children of
                                    Dune

        """)
    let wider = table.render(width: 52)
    #expect(wider.contains("AUTHOR") && !wider.contains("YEAR"), "\(wider)")
    for width in [40, 52, 80] {
        for line in table.render(width: width).split(separator: "\n") { #expect(line.count <= width, "\(width): \(line)") }
    }
    #expect(table.render(width: 80).contains("YEAR"))
}

@Test func aHintIsWrappedBetweenWordsAndItsCommandIsNeverSplit() {
    let hint = "Only the books cached on this device were searched: run `lib -A alice@127.0.0.1:19501 pull` for the whole library.\n"
    for width in [40, 80] {
        let wrapped = TextWrapping.breakLongLines(hint, width: width)
        #expect(wrapped.contains("`lib -A alice@127.0.0.1:19501 pull`"), "\(width): \(wrapped)")
        for line in wrapped.split(separator: "\n") { #expect(line.count < width, "\(width): \(line)") }
    }
    #expect(TextWrapping.breakLongLines(hint, width: 200) == hint)
    let buffer = OutputBuffer()
    let channel = OutputChannel(isTerminal: true, columns: 40, wrapsLines: true, sink: buffer)
    channel.write(hint)
    channel.write("\r\u{1B}[KListing books: 42% (8,400/20,000)")
    #expect(buffer.text == TextWrapping.breakLongLines(hint, width: 40) + "\r\u{1B}[KListing books: 42% (8,400/20,000)",
            "a progress line is written as it is")
}

@Test func libsOwnTypographyIsASCIIInALocaleThatIsNotUTF8() {
    #expect(ASCIIWords.transliterated("copies: 3 → 4 — use --limit… alice ↑2 · ↑1 ≠2") == "copies: 3 -> 4 - use --limit... alice +2 | +1 =2")
    #expect(ASCIIWords.transliterated("Søren García") == "Søren García", "other text as it is")
    #expect(!ASCIIWords.localeIsUTF8 { ["LC_ALL": "C"][$0] })
    #expect(ASCIIWords.localeIsUTF8 { ["LANG": "en_US.UTF-8"][$0] })
    #expect(!ASCIIWords.localeIsUTF8 { ["LC_ALL": "C", "LANG": "en_US.UTF-8"][$0] })
    let buffer = OutputBuffer()
    OutputChannel(isTerminal: true, asciiOnly: true, sink: buffer).writingAsGiven().write("→")
    #expect(buffer.text == "→", "JSON is written as given")
}
