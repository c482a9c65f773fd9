/// One option or flag, declared once; parsing, help, completions and the man
/// page are all generated from these declarations.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes: `wait` for `--wait`. Identifies the option.
    public let name: String
    /// The one-letter short name without the dash (`A` for `-A`), if any.
    public let short: Character?
    /// The value the option takes, or `nil` for a flag.
    public let value: Value?
    /// One line (about 50 columns) for help tables and completion menus.
    public let summary: String
    /// Further sentences for the man page; empty when the summary says it all.
    public let details: String
    /// A flag that may be repeated to say more (`-v`, `-vv`).
    public var isCounted = false

    /// The value an option takes: its placeholder (`SECONDS`) and its kind.
    public struct Value: Sendable, Equatable {
        public let placeholder: String
        public let kind: ValueKind

        public init(_ placeholder: String, _ kind: ValueKind) {
            self.placeholder = placeholder
            self.kind = kind
        }
    }

    /// Declares a flag (no value).
    public static func flag(_ name: String, short: Character? = nil, _ summary: String, details: String = "") -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, summary: summary, details: details)
    }

    /// Declares a flag that may be given more than once (`-vv`).
    public static func counter(_ name: String, short: Character? = nil, _ summary: String, details: String = "") -> OptionSpec {
        var option = OptionSpec(name: name, short: short, value: nil, summary: summary, details: details)
        option.isCounted = true
        return option
    }

    /// Declares an option that takes a value.
    public static func option(
        _ name: String, short: Character? = nil, value placeholder: String, _ kind: ValueKind,
        _ summary: String, details: String = ""
    ) -> OptionSpec {
        OptionSpec(name: name, short: short, value: Value(placeholder, kind), summary: summary, details: details)
    }

    /// `--wait`.
    public var longForm: String { "--" + name }
    /// `-A`, if the option has a short name.
    public var shortForm: String? { short.map { "-" + String($0) } }
    /// `--wait DURATION` or `--all`: how synopses show the option.
    public var synopsisForm: String { value.map { "\(longForm) \($0.placeholder)" } ?? longForm }
    /// `-A, --account ACCOUNT` or `    --wait DURATION`: the left column of help tables.
    public var helpLabel: String {
        (shortForm.map { $0 + ", " } ?? "    ") + synopsisForm
    }
    /// Whether the option takes a value.
    public var takesValue: Bool { value != nil }
    /// The summary and the details as sentences, for the man page.
    public var fullDescription: String { summary + "." + (details.isEmpty ? "" : " " + details) }
}
