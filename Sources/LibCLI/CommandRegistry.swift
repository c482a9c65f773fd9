/// Every command a program knows, declared once: the parser, help,
/// completions and man page all read this list, so they cannot drift apart.
/// A program gives its own commands (lib's are in LibCommands); LibCLI adds
/// its built-in ones (`help`, `completion` and the hidden `__complete` and
/// `__man`) after them.
public struct CommandRegistry: Sendable {
    /// All commands, hidden ones included, in the order help lists them.
    private let syntaxes: [any CommandSyntax.Type]

    public init(commands: [any CommandSyntax.Type]) {
        self.syntaxes = commands + BuiltinCommands.syntaxes
    }

    /// All commands, hidden ones included, in the order help lists them.
    public var commands: [CommandSpec] { syntaxes.map { $0.command } }

    /// The commands users see: listed, suggested and completed.
    public var visibleCommands: [CommandSpec] { commands.filter { !$0.isHidden } }

    /// The command with this exact name, hidden ones included. A search by
    /// name builds no other command's `CommandSpec`.
    public func command(named name: String) -> CommandSpec? {
        syntaxes.first { $0.name == name }?.command
    }

    /// Options accepted before the command (and after it, but for `--version`).
    public var globalOptions: [OptionSpec] { GlobalOptionsSyntax.all }

    /// The global option with this long name.
    public func globalOption(named name: String) -> OptionSpec? {
        GlobalOptionsSyntax.option(named: name)
    }

    /// The global option with this short name.
    public func globalOption(short: Character) -> OptionSpec? {
        GlobalOptionsSyntax.option(short: short)
    }

    /// `lib [-A ACCOUNT] [--json] [-q] [--no-color] COMMAND ...`
    public var synopsis: String { Synopsis().program(self) }
}

extension CommandRegistry {
    /// The options a command's line accepts after its name: its own, `-h`,
    /// and the global ones (all but `--help` and `--version`), which may
    /// appear anywhere. Completions and suggestions offer these.
    public func optionsAccepted(after command: CommandSpec) -> [OptionSpec] {
        let own = command.acceptedOptions
        return own + globalOptions.filter { global in
            global != GlobalOptionsSyntax.version && !own.contains { $0.name == global.name || ($0.short != nil && $0.short == global.short) }
        }
    }
}
