/// What the three completion scripts share: which words each command accepts
/// and how each kind of value is named in the scripts' own tables.
struct CompletionWords {
    let registry: CommandRegistry

    /// `-A --account --json …`: every spelling of the global options.
    var globalOptionWords: [String] { Self.spellings(registry.globalOptions) }

    /// The commands to complete (hidden ones are not).
    var commands: [CommandSpec] { registry.visibleCommands }

    /// Every spelling of a command's options, `-h --help` included.
    func optionWords(_ command: CommandSpec) -> [String] {
        Self.spellings(registry.optionsAccepted(after: command))
    }

    /// The spellings of options, short before long.
    static func spellings(_ options: [OptionSpec]) -> [String] {
        options.flatMap { [$0.shortForm, $0.longForm].compactMap { $0 } }
    }

    /// How the bash and fish scripts name a completion kind: `none`,
    /// `accounts`, `paths`, `commands`, or `words:a b c`.
    static func tag(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: "none"
        case .accounts: "accounts"
        case .resourcePaths: "paths"
        case .collectionsAndPaths: "resources"
        case .conflictPaths: "conflicts"
        case .pushedPaths: "pushed"
        case .fields: "fields"
        case .commands: "commands"
        case .words(let words): "words:" + words.joined(separator: " ")
        }
    }
}
