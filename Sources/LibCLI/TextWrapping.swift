/// Fills words into lines of a maximum width, for help text.
enum TextWrapping {
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
