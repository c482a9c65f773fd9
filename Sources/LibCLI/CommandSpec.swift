import LibBase

/// One command, declared once: its name, arguments, options, which options
/// exclude each other, and the text of its help.
public struct CommandSpec: Sendable {
    /// An example command line with what it does.
    public struct Example: Sendable, Equatable {
        public let commandLine: String
        public let explanation: String

        public init(_ commandLine: String, _ explanation: String) {
            self.commandLine = commandLine
            self.explanation = explanation
        }
    }

    /// An exit status a command can end with and what it means for that command.
    public struct ExitStatus: Sendable, Equatable {
        public let code: ExitCode
        public let meaning: String

        public init(_ code: ExitCode, _ meaning: String? = nil) {
            self.code = code
            self.meaning = meaning ?? code.meaning
        }
    }

    public let name: String
    /// One line (under 60 columns) for the command list and completion menus.
    public let summary: String
    /// Paragraphs for help and the man page, separated by blank lines.
    public let discussion: String
    public let arguments: [ArgumentSpec]
    /// The command's own options, without `-h/--help` (every command has it).
    public let options: [OptionSpec]
    /// Groups of options of which at most one may be given, by long name.
    public let exclusiveGroups: [[String]]
    public let examples: [Example]
    public let exitStatuses: [ExitStatus]
    /// Internal commands (`__complete`, `__man`) are parsed but never listed,
    /// suggested or completed.
    public let isHidden: Bool

    public init(
        name: String, summary: String, discussion: String,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [], exclusiveGroups: [[String]] = [],
        examples: [Example] = [], exitStatuses: [ExitStatus] = [], isHidden: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.exclusiveGroups = exclusiveGroups
        self.examples = examples
        self.exitStatuses = exitStatuses
        self.isHidden = isHidden
    }

    /// The command's options followed by `-h/--help`, as the parser accepts them.
    public var acceptedOptions: [OptionSpec] { options + [GlobalOptionsSyntax.help] }

    /// The option with this long name, if the command accepts it.
    public func option(named name: String) -> OptionSpec? {
        acceptedOptions.first { $0.name == name }
    }

    /// The option with this short name, if the command accepts it.
    public func option(short: Character) -> OptionSpec? {
        acceptedOptions.first { $0.short == short }
    }

    /// The exclusive group that contains the option, if any.
    public func exclusiveGroup(containing name: String) -> [String]? {
        exclusiveGroups.first { $0.contains(name) }
    }

    /// `lib push [--wait DURATION] [--all]`.
    public var synopsis: String { Synopsis().command(self) }
}

extension [CommandSpec.ExitStatus] {
    /// 0, 1 and 2, with what success and failure mean for this command,
    /// then the codes it may also end with, in the order given.
    public static func usual(success: String? = nil, failure: String? = nil, also more: Self = []) -> Self {
        [.init(.success, success), .init(.failure, failure), .init(.usage)] + more
    }
}
