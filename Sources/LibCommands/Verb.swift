import LibCLI
import LibSync
import LibBase

/// One of lib's commands, in one file: its syntax (name, options, help),
/// its options as typed values read from the parsed line, which program
/// runs it, and what it does. `LibCommandList` lists them all.
protocol Verb: CommandSyntax {
    associatedtype Options

    /// Reads the options from the command line, checking what the parser
    /// cannot (a path's form, a combination); no I/O.
    static func options(_ parsed: ParsedCommand) throws -> Options

    /// Whether these options need `lib-online` (the network or the
    /// keyring); otherwise the static `lib` runs the command itself.
    static func runsOnline(_ options: Options) -> Bool

    /// The same, for a verb whose answer depends on what the device holds:
    /// it may look at the account's files (as git's RUN_SETUP_GENTLY; it
    /// may open an existing store as the command would, and then hands it
    /// to the run), and must change nothing the account holds. By default
    /// `runsOnline(options)`.
    static func placement(_ options: Options, lookingAt context: CommandContext) -> Placement

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode

    /// The run, with the account store the placement opened (nil: none).
    /// By default the store is not needed.
    static func run(_ options: Options, _ context: CommandContext, opened store: AccountStore?) throws -> ExitCode
}

/// Which program runs a command, and the account store deciding it opened
/// (SQLite reads a store's schema at each open: the run uses that one).
struct Placement {
    var online: Bool
    var opened: AccountStore?
}

extension Verb {
    static func placement(_ options: Options, lookingAt context: CommandContext) -> Placement {
        Placement(online: runsOnline(options))
    }

    static func run(_ options: Options, _ context: CommandContext, opened store: AccountStore?) throws -> ExitCode {
        try run(options, context)
    }

    /// The handler the dispatcher runs. Which program runs the command is
    /// decided here, once, before it starts: in `lib` a command that needs
    /// the network hands the whole line to `lib-online` before anything
    /// has changed. Nothing else can hand over.
    static func handler(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        let options = try options(parsed)
        let placement = placement(options, lookingAt: context)
        if placement.online { try context.continueOnline(name) }
        return try run(options, context, opened: placement.opened)
    }
}

private extension CommandContext {
    /// In `lib`, replaces the process with `lib-online`; in `lib-online`,
    /// returns at once.
    func continueOnline(_ command: String) throws(CommandFailure) {
        guard case .onDevice(let arguments) = services[ProgramRoleKey.self] else { return }
        standardOutput.flush()
        standardError.flush()
        try OnlineHelper.replaceProcess(arguments: arguments, command: command)
    }
}
