/// Escapes text for man(7) source, so that mandoc and groff print it as written.
enum Roff {
    /// Text for a line of running text: backslashes and hyphens escaped, and
    /// a leading `.` or `'` (which would start a request) neutralised.
    static func text(_ text: String) -> String {
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
    static func lines(_ text: String, limit: Int = 80) -> [String] {
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
    static func bold(_ word: String) -> String { "\\fB" + text(word) + "\\fR" }

    /// Italic, for placeholders.
    static func italic(_ word: String) -> String { "\\fI" + text(word) + "\\fR" }

    /// A synopsis writer that makes literal words bold and placeholders italic.
    static var synopsis: Synopsis {
        Synopsis(literal: bold, placeholder: italic)
    }
}
