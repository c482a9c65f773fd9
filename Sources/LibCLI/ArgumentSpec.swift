/// One positional argument of a command, declared once.
public struct ArgumentSpec: Sendable, Equatable {
    /// How many values the argument takes.
    public enum Arity: Sendable, Equatable {
        case required
        case optional
        /// Zero or more; only the last argument of a command may repeat.
        case repeated
        /// One or more: `lib search jane austen`.
        case oneOrMore

        /// Whether the argument takes every value left.
        public var repeats: Bool { self == .repeated || self == .oneOrMore }
    }

    /// The placeholder, which also identifies the argument: `PATH`, `ACCOUNT`.
    public let placeholder: String
    public let kind: ValueKind
    public let arity: Arity
    /// One line for help tables.
    public let summary: String

    public init(_ placeholder: String, _ kind: ValueKind, _ arity: Arity, _ summary: String) {
        self.placeholder = placeholder
        self.kind = kind
        self.arity = arity
        self.summary = summary
    }
}
