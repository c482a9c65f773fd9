import LibCLI
import Testing

/// The one rule for outside text on its way to a person (issue 23).
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("Dune", "Dune"),
        ("a\u{1B}]52;c;aGk=\u{07}b", "a\\u001b]52;c;aGk=\\u0007b"),
        ("x\u{1B}[2Jy", "x\\u001b[2Jy"),
        ("c1\u{9B}2J\u{85}", "c1\\u009b2J\\u0085"),
        ("del\u{7F}", "del\\u007f"),
        ("rtl\u{202E}txt\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}", "rtl\\u202etxt\\u2066\\u2069\\u200e\\u200f\\u061c"),
        ("two\nlines\tand a tab", "two\\u000alines\\u0009and a tab"),
        ("é 😀 Жук %F{red}", "é 😀 Жук %F{red}"),
    ])
    func controlAndBidiCharactersAreShownEscaped(text: String, shown: String) {
        #expect(TerminalText.escaped(text) == shown)
    }

    @Test func aMessageKeepsItsOwnLinesAndTabs() {
        #expect(TerminalText.escaped("one\n\ttwo\u{1B}[31m\n", keepingLayout: true) == "one\n\ttwo\\u001b[31m\n")
    }
}
