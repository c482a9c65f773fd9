import LibJSON

/// The one rule for text from outside lib (a server's titles, authors, tags,
/// problem details and user names; a store's contents) on its way to a
/// person: every character a terminal would act on
/// (`Unicode.Scalar.isTerminalControl`) is shown as a `\u001b` escape, the
/// way JSON output writes it, so that `diff` and resolve's table (which show
/// JSON) and every other human output agree.
public enum TerminalText {
    /// `text` with those characters escaped. With `keepingLayout`, newline
    /// and tab stay (a message's own lines); otherwise they are escaped too
    /// (one line, one table cell).
    public static func escaped(_ text: String, keepingLayout: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLayout) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLayout) { out += scalar.jsonUnicodeEscape } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, _ keepingLayout: Bool) -> Bool {
        if keepingLayout, scalar == "\n" || scalar == "\t" { return false }
        return scalar.isTerminalControl
    }
}
