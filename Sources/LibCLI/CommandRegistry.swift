/// Every command lib knows, declared once; the parser, help, completions and
/// man page all read this list, so they cannot drift apart.
public struct CommandRegistry: Sendable {
    /// Options accepted before the command.
    public let globalOptions: [OptionSpec]
    /// All commands, hidden ones included, in the order help lists them.
    public let commands: [CommandSpec]

    public init(globalOptions: [OptionSpec], commands: [CommandSpec]) {
        self.globalOptions = globalOptions
        self.commands = commands
    }

    /// lib's commands.
    public static let lib = CommandRegistry(
        globalOptions: GlobalOptionsSyntax.all,
        commands: [
            LoginSyntax.command, LogoutSyntax.command, SwitchSyntax.command,
            GetSyntax.command, EditSyntax.command, PushSyntax.command,
            StatusSyntax.command, DiffSyntax.command, DiscardSyntax.command, ResolveSyntax.command, DoctorSyntax.command,
            CompletionSyntax.command, HelpSyntax.command,
            CompleteSyntax.command, ManualSyntax.command,
        ])

    /// The commands users see: listed, suggested and completed.
    public var visibleCommands: [CommandSpec] { commands.filter { !$0.isHidden } }

    /// The command with this exact name, hidden ones included.
    public func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }

    /// The global option with this long name.
    public func globalOption(named name: String) -> OptionSpec? {
        globalOptions.first { $0.name == name }
    }

    /// The global option with this short name.
    public func globalOption(short: Character) -> OptionSpec? {
        globalOptions.first { $0.short == short }
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
