import LibCLI
import Testing

@Test func naturalOrderCountsDigitRunsByValue() {
    let ids = ["b-10", "b-2", "b-1", "b-11", "a-3", "b-01", "b", "b-1a"]
    #expect(ids.sortedNaturally(by: { $0 }) == ["a-3", "b", "b-1", "b-1a", "b-01", "b-2", "b-10", "b-11"])
    #expect(NaturalOrder.compare("x9", "x10") < 0)
    #expect(NaturalOrder.compare("x10", "x10") == 0)
}

@Test func tableFitsTheWidthByCuttingTheWidestColumnWithAnEllipsis() {
    var table = TextTable([.init("ID", canShrink: false), .init("TITLE", minimumWidth: 5), .init("YEAR", canShrink: false)])
    table.append(["b-1", "A very long title that will not fit", "1965"])
    table.append(["b-20", "Short", ""])
    let wide = table.render(width: nil)
    #expect(wide == """
        ID    TITLE                                YEAR
        b-1   A very long title that will not fit  1965
        b-20  Short

        """)
    let narrow = table.render(width: 24)
    #expect(narrow == """
        ID    TITLE         YEAR
        b-1   A very long…  1965
        b-20  Short

        """)
    for line in narrow.split(separator: "\n") { #expect(line.count <= 24) }
    // Styles wrap the text after the layout: escapes take no width.
    let painted = table.render(width: 24, painter: TextPainter(isEnabled: true))
    #expect(painted.hasPrefix("\u{1B}[1mID\u{1B}[0m    \u{1B}[1mTITLE\u{1B}[0m"))
}

@Test func painterDoesNothingWhenColourIsOff() {
    #expect(TextPainter(isEnabled: false).paint("x", .red) == "x")
    #expect(TextPainter(isEnabled: true).paint("x", .red) == "\u{1B}[31mx\u{1B}[0m")
    #expect(TextPainter(isEnabled: true).paint("", .red) == "")
}
