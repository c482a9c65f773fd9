/// Escapes text for man(7) source, so that mandoc and groff print it as written.
public enum Roff {
    /// Text for a line of running text: backslashes and hyphens escaped, and
    /// a leading `.` or `'` (which would start a request) neutralised.
    public static func text(_ text: String) -> String {
        let escaped = escapeCharacters(text)
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { return "\\&" + escaped }
        return escaped
    }

    /// Backslashes and hyphens escaped, and nothing else.
    private static func escapeCharacters(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Running text as source lines of at most 80 bytes (mandoc's style
    /// limit), each escaped; a line that would begin with `.` or `'` starts
    /// with `\&` instead.
    public static func lines(_ text: String, limit: Int = 80) -> [String] {
        let words = text.split(separator: " ").map { escapeCharacters(String($0)) }
        var lines: [String] = []
        var line = ""
        for word in words {
            if !line.isEmpty, line.utf8.count + 1 + word.utf8.count > limit {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? word : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }

    /// Bold, for words typed as is.
    public static func bold(_ word: String) -> String { "\\fB" + text(word) + "\\fR" }

    /// Italic, for placeholders.
    public static func italic(_ word: String) -> String { "\\fI" + text(word) + "\\fR" }

    /// Words already escaped (a synopsis) on source lines of at most 80
    /// bytes (roff fills them into one paragraph anyway); a line that would
    /// begin with `.` (as in `...`) starts with `\&`.
    public static func sourceLines(_ parts: [String]) -> [String] {
        var lines: [String] = []
        var line = ""
        for part in parts.joined(separator: " ").split(separator: " ") {
            if !line.isEmpty, line.utf8.count + 1 + part.utf8.count > 80 {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? part : " " + part
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }
}
