/// The few looks lib's output uses on a terminal, as ANSI SGR sequences
/// (ECMA-48). What each means is fixed: red for what failed or clashes,
/// yellow for what waits (pending, conflict), green for what is done or
/// yours, cyan for theirs, bold for headings, dim for what matters less.
public enum TextStyle: Sendable {
    case bold, dim, red, green, yellow, cyan

    var code: String {
        switch self {
        case .bold: "1"
        case .dim: "2"
        case .red: "31"
        case .green: "32"
        case .yellow: "33"
        case .cyan: "36"
        }
    }
}

/// Applies `TextStyle`s when colour is allowed, and nothing otherwise, so
/// that callers write one code path for a terminal and a pipe.
public struct TextPainter: Sendable {
    public let isEnabled: Bool

    public init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// `text` in `style`, or `text` as it is when colour is off or it is empty.
    public func paint(_ text: String, _ style: TextStyle?) -> String {
        guard isEnabled, let style, !text.isEmpty else { return text }
        return "\u{1B}[\(style.code)m\(text)\u{1B}[0m"
    }
}

extension CommandContext {
    /// Paints standard output: only on a terminal, never with NO_COLOR or --no-color.
    public var outputPainter: TextPainter { TextPainter(isEnabled: colorsStandardOutput) }
    /// Paints standard error, by the same rules.
    public var errorPainter: TextPainter { TextPainter(isEnabled: colorsStandardError) }
}
