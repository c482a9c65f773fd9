import LibCLI
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

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode
}

extension Verb {
    /// The handler the dispatcher runs. In `lib` a command whose options
    /// need the network first hands the whole line to `lib-online`, before
    /// anything has changed.
    static func handler(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        let options = try options(parsed)
        if runsOnline(options) { try context.continueOnline(name) }
        return try run(options, context)
    }
}
