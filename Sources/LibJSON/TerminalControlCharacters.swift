extension Unicode.Scalar {
    /// Whether a terminal acts on the character rather than show it: C0
    /// controls, DEL and C1 controls (`ESC ] 52` writes the clipboard, `ESC ]
    /// 0` the window title, a lone C1 CSI clears the screen on some
    /// terminals), and the bidirectional formatting characters that make text
    /// read in another order than it is stored (U+202A–U+202E, U+2066–U+2069
    /// and the marks U+200E, U+200F, U+061C; CVE-2021-42574). The JSON writer
    /// escapes all of them, and LibCLI's TerminalText shows them escaped in
    /// human output: one rule for text from outside.
    public var isTerminalControl: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `\u` and four lower-case hex digits, as JSON writes it.
    public var jsonUnicodeEscape: String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
