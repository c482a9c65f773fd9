/// Fills words into lines of a maximum width, for help text.
public enum TextWrapping {
    /// Wraps each paragraph (separated by blank lines) to `width` columns,
    /// every line indented by `indent` spaces; paragraphs stay separated by a
    /// blank line. A word longer than a line gets a line of its own.
    static func wrap(_ text: String, width: Int, indent: Int = 0) -> String {
        paragraphs(text).map { fill($0, width: width, indent: indent) }.joined(separator: "\n\n")
    }

    /// The paragraphs of a text, each with its line breaks turned into spaces.
    static func paragraphs(_ text: String) -> [String] {
        var result: [String] = []
        var current: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                if !current.isEmpty { result.append(current.joined(separator: " ")) }
                current = []
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { result.append(current.joined(separator: " ")) }
        return result
    }

    /// One paragraph filled to `width`, with `indent` spaces before every line
    /// (`firstIndent` before the first, when the caller has already written
    /// a label there).
    static func fill(_ paragraph: String, width: Int, indent: Int, firstIndent: Int? = nil) -> String {
        fill(words: paragraph.split(separator: " ").map(String.init), width: width, indent: indent, firstIndent: firstIndent)
    }

    /// Like `fill(_:width:indent:firstIndent:)`, with the units that must not
    /// be broken (such as `[--wait DURATION]`) given as words.
    static func fill(words: [String], width: Int, indent: Int, firstIndent: Int? = nil) -> String {
        var lines: [String] = []
        var line = String(repeating: " ", count: firstIndent ?? indent)
        var lineHasWords = false
        for word in words {
            if lineHasWords, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                lineHasWords = false
            }
            if lineHasWords { line += " " }
            line += word
            lineHasWords = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Each line of `text` at least `width` wide wrapped between words, the
    /// rest of it indented by `indent` more than the line itself: a message
    /// on a terminal, which would otherwise break it anywhere, a hint inside
    /// a word or a command. Narrow widths (under 20) leave the text as it is.
    public static func breakLongLines(_ text: String, width: Int, indent: Int = 2) -> String {
        guard width >= 20 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.count >= width else { return String(line) }
            let leading = line.prefix { $0 == " " }.count
            return fill(words: units(of: String(line)), width: width - 1, indent: leading + indent, firstIndent: leading)
        }.joined(separator: "\n")
    }

    /// The words of a message, a command in backticks one word
    /// (`lib -A alice@127.0.0.1:19501 pull` is never broken).
    static func units(of line: String) -> [String] {
        var units: [String] = []
        var open = false
        for word in line.split(separator: " ") {
            if open, let last = units.popLast() { units.append(last + " " + word) } else { units.append(String(word)) }
            if word.filter({ $0 == "`" }).count % 2 == 1 { open.toggle() }
        }
        return units
    }

    /// Rows of a two-column table (label, text): labels in the left column,
    /// texts wrapped in the right one, which starts at `column` unless a label
    /// is too long, in which case its text starts on the next line.
    static func table(_ rows: [(label: String, text: String)], width: Int, indent: Int = 2, maxColumn: Int = 28) -> String {
        let widest = rows.map { indent + $0.label.count + 2 }.max() ?? 0
        let column = min(widest, maxColumn)
        return rows.map { row in
            let label = String(repeating: " ", count: indent) + row.label
            if label.count + 2 <= column {
                let padded = label + String(repeating: " ", count: column - label.count)
                return padded + fill(row.text, width: width, indent: column).dropFirst(column)
            }
            return label + "\n" + fill(row.text, width: width, indent: column)
        }.joined(separator: "\n")
    }
}
