/// lib's own typography (arrows, dashes, the ellipsis, the prompt's marks)
/// in ASCII, for a locale whose characters are not UTF-8 (`LC_ALL=C`):
/// such a terminal shows the UTF-8 bytes of `→` as three wrong characters.
/// Only these characters change; any other text (a book's title, as the
/// server sent it) is written as it was, escaped by `TerminalText`.
public enum ASCIIWords {
    static let replacements: [Unicode.Scalar: String] = [
        "→": "->", "←": "<-", "—": "-", "–": "-", "…": "...", "·": "|", "↑": "+", "≠": "=", "✗": "x", "⊘": "~",
        "✓": "ok", "‘": "'", "’": "'", "“": "\"", "”": "\"", "×": "x", "≤": "<=", "≥": ">=", "•": "*",
    ]

    /// `text` with lib's typography in ASCII.
    public static func transliterated(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let ascii = replacements[scalar] { result += ascii } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// Whether the locale's characters are UTF-8, read as the C library
    /// would (LC_ALL, then LC_CTYPE, then LANG; unset or empty is "C",
    /// which is ASCII) without loading any locale: the codeset of
    /// `language_TERRITORY.codeset@modifier` is UTF-8 or utf8, in any case.
    public static func localeIsUTF8(_ variable: (String) -> String?) -> Bool {
        var locale = "C"
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = variable(name), !value.isEmpty { locale = value; break }
        }
        guard let dot = locale.firstIndex(of: "." as Character) else { return false }
        let codeset = locale[locale.index(after: dot)...].prefix { $0 != "@" }
        return codeset.lowercased().filter { $0 != "-" } == "utf8"
    }
}
