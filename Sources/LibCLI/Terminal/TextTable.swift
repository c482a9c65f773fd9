import LibBase

/// A table of text for a terminal: a header and rows in aligned columns,
/// two spaces apart, fitted to a width by shortening the widest columns
/// that may shrink, with an ellipsis where text was cut (or, with
/// `wrapsCells`, the text continued on the row's next lines, whole); styles
/// are applied after the layout so that escapes never count as width.
public struct TextTable: Sendable {
    public struct Column: Sendable {
        public let title: String
        /// Whether the column may be cut to fit (ids and codes should not be).
        public let canShrink: Bool
        /// The fewest columns a shrinking column keeps.
        public let minimumWidth: Int

        public init(_ title: String, canShrink: Bool = true, minimumWidth: Int = 8) {
            self.title = title
            self.canShrink = canShrink
            self.minimumWidth = minimumWidth
        }
    }

    /// One cell: its text and the style it is shown in on a terminal.
    public struct Cell: Sendable, ExpressibleByStringLiteral {
        public let text: String
        public let style: TextStyle?

        public init(_ text: String, _ style: TextStyle? = nil) {
            self.text = text
            self.style = style
        }

        public init(stringLiteral text: String) {
            self.init(text)
        }
    }

    public let columns: [Column]
    public var rows: [[Cell]] = []
    /// A cell wider than its column goes on over the row's next lines
    /// instead of being cut: for values that must be read whole.
    public var wrapsCells = false

    public init(_ columns: [Column]) {
        self.columns = columns
    }

    public mutating func append(_ row: [Cell]) {
        rows.append(row)
    }

    /// The lines of the table, each ending in a newline; `width` nil: no limit.
    public func render(width: Int?, painter: TextPainter = TextPainter(isEnabled: false)) -> String {
        let widths = columnWidths(fitting: width)
        let header = columns.map { Cell($0.title, .bold) }
        return ([header] + rows).map { row in
            let cells = widths.indices.map { index in index < row.count ? row[index] : Cell("") }
            let pieces = zip(cells, widths).map { cell, columnWidth in
                wrapsCells ? Self.wrap(cell.text, to: columnWidth) : [Self.truncate(cell.text, to: columnWidth)]
            }
            return (0..<(pieces.map(\.count).max() ?? 1)).map { lineIndex in
                var line = ""
                var pendingSpaces = 0
                for (index, columnWidth) in widths.enumerated() {
                    let text = lineIndex < pieces[index].count ? pieces[index][lineIndex] : ""
                    let shown = Self.width(of: text)
                    if shown > 0 {
                        line += String(repeating: " ", count: pendingSpaces) + painter.paint(text, cells[index].style)
                        pendingSpaces = columnWidth - shown + 2
                    } else {
                        pendingSpaces += columnWidth + 2
                    }
                }
                return line + "\n"
            }.joined()
        }.joined()
    }

    /// `text` in pieces of at most `width` columns, broken after a space
    /// when one is near enough, else inside the text.
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0, text.count > width else { return [text] }
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.count > width {
            let window = rest.prefix(width)
            let cut = window.lastIndex(of: " ").map { rest.index(after: $0) }
                .flatMap { rest.distance(from: rest.startIndex, to: $0) > width / 2 ? $0 : nil } ?? window.endIndex
            pieces.append(String(rest[..<cut]).trimmingTrailingSpaces())
            rest = rest[cut...]
        }
        if !rest.isEmpty { pieces.append(String(rest)) }
        return pieces
    }

    /// Each column's natural width, then the widest shrinkable ones cut down
    /// one column at a time until the line fits (or nothing more can shrink).
    func columnWidths(fitting limit: Int?) -> [Int] {
        var widths = columns.indices.map { index in
            ([Self.width(of: columns[index].title)] + rows.map { index < $0.count ? Self.width(of: $0[index].text) : 0 }).max() ?? 0
        }
        guard let limit else { return widths }
        // Empty trailing cells need no room: the line ends before them.
        func total() -> Int { widths.reduce(0, +) + 2 * max(0, widths.count - 1) }
        while total() > limit {
            let candidates = widths.indices.filter { columns[$0].canShrink && widths[$0] > columns[$0].minimumWidth }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        return widths
    }

    /// The columns a string takes on a terminal (one per character; wide
    /// East Asian characters are not told apart).
    static func width(of text: String) -> Int { text.count }

    /// `text` cut to `width` columns, the last one an ellipsis when cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }
}
