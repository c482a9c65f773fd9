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
        /// When the table cannot fit even with every column shrunk, columns
        /// with a drop order are left out, the lowest first (nil: never).
        public let dropOrder: Int?
        /// Shown only when the whole table fits without cutting or wrapping
        /// anything (extra detail for a wide terminal).
        public let onlyWhenRoomy: Bool

        public init(_ title: String, canShrink: Bool = true, minimumWidth: Int = 8, dropOrder: Int? = nil,
                    onlyWhenRoomy: Bool = false) {
            self.title = title
            self.canShrink = canShrink
            self.minimumWidth = minimumWidth
            self.dropOrder = dropOrder
            self.onlyWhenRoomy = onlyWhenRoomy
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
        let shown = shownColumns(fitting: width)
        guard shown.count == columns.count else {
            var narrower = TextTable(shown.map { columns[$0] })
            narrower.rows = rows.map { row in shown.map { $0 < row.count ? row[$0] : Cell("") } }
            narrower.wrapsCells = wrapsCells
            return narrower.render(width: width, painter: painter)
        }
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

    /// The indices of the columns shown at `limit`: all, unless even the
    /// narrowest layout is too wide; then without the droppable ones, the
    /// lowest drop order first, until it fits.
    func shownColumns(fitting limit: Int?) -> [Int] {
        var shown = Array(columns.indices)
        guard let limit else { return shown }
        func natural(_ index: Int) -> Int {
            ([Self.width(of: columns[index].title)] + rows.map { index < $0.count ? Self.width(of: $0[index].text) : 0 }).max() ?? 0
        }
        func narrowest() -> Int {
            shown.map { index in
                columns[index].canShrink ? min(natural(index), columns[index].minimumWidth) : natural(index)
            }.reduce(0, +) + 2 * max(0, shown.count - 1)
        }
        if shown.map(natural).reduce(0, +) + 2 * max(0, shown.count - 1) > limit {
            shown.removeAll { columns[$0].onlyWhenRoomy }
        }
        while narrowest() > limit,
              let drop = shown.filter({ columns[$0].dropOrder != nil }).min(by: { columns[$0].dropOrder! < columns[$1].dropOrder! }) {
            shown.removeAll { $0 == drop }
        }
        return shown
    }

    /// `text` in pieces of at most `width` columns, broken after a space
    /// (never inside a word that fits on a line of its own), else inside a
    /// word longer than the column.
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0, text.count > width else { return [text] }
        var pieces: [String] = []
        var rest = Substring(text)
        while rest.count > width {
            let window = rest.prefix(width + 1)
            let cut = window.lastIndex(of: " ").map { rest.index(after: $0) }
                .flatMap { rest.distance(from: rest.startIndex, to: $0) > 1 ? $0 : nil } ?? rest.prefix(width).endIndex
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

    /// `text` cut to `width` columns, the last one an ellipsis when cut;
    /// cut after a whole word when one ends in the second half of the room.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        let room = text.prefix(width)
        if let space = room.lastIndex(of: " "), room.distance(from: room.startIndex, to: space) >= width / 2 {
            return String(room[..<space]).trimmingTrailingSpaces() + "…"
        }
        return String(text.prefix(width - 1)) + "…"
    }
}
