/// Every command lib knows, declared once; the parser, help, completions and
/// man page all read this list, so they cannot drift apart.
public struct CommandRegistry: Sendable {
    /// lib's commands.
    public static let lib = CommandRegistry()

    /// All commands, hidden ones included, in the order help lists them.
    private static let syntaxes: [any CommandSyntax.Type] = [
        LoginSyntax.self, LogoutSyntax.self, SwitchSyntax.self,
        GetSyntax.self, EditSyntax.self, NewSyntax.self, PushSyntax.self,
        StatusSyntax.self, DiffSyntax.self, DiscardSyntax.self, RestoreSyntax.self, LogSyntax.self, RevertSyntax.self,
        ResolveSyntax.self, DoctorSyntax.self,
        CompletionSyntax.self, HelpSyntax.self,
        CompleteSyntax.self, ManualSyntax.self,
    ]

    /// All commands, hidden ones included, in the order help lists them.
    public var commands: [CommandSpec] { Self.syntaxes.map { $0.command } }

    /// The commands users see: listed, suggested and completed.
    public var visibleCommands: [CommandSpec] { commands.filter { !$0.isHidden } }

    /// The command with this exact name, hidden ones included.
    public func command(named name: String) -> CommandSpec? {
        Self.syntax(named: name)?.command
    }

    /// A switch rather than a search of `syntaxes`: a command line then
    /// builds nothing but its own command (a test checks the two agree).
    static func syntax(named name: String) -> (any CommandSyntax.Type)? {
        switch name {
        case LoginSyntax.name: LoginSyntax.self
        case LogoutSyntax.name: LogoutSyntax.self
        case SwitchSyntax.name: SwitchSyntax.self
        case GetSyntax.name: GetSyntax.self
        case EditSyntax.name: EditSyntax.self
        case NewSyntax.name: NewSyntax.self
        case RestoreSyntax.name: RestoreSyntax.self
        case LogSyntax.name: LogSyntax.self
        case RevertSyntax.name: RevertSyntax.self
        case PushSyntax.name: PushSyntax.self
        case StatusSyntax.name: StatusSyntax.self
        case DiffSyntax.name: DiffSyntax.self
        case DiscardSyntax.name: DiscardSyntax.self
        case ResolveSyntax.name: ResolveSyntax.self
        case DoctorSyntax.name: DoctorSyntax.self
        case CompletionSyntax.name: CompletionSyntax.self
        case HelpSyntax.name: HelpSyntax.self
        case CompleteSyntax.name: CompleteSyntax.self
        case ManualSyntax.name: ManualSyntax.self
        default: nil
        }
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
