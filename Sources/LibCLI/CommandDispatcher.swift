#if canImport(Glibc)
import Glibc
#endif

/// Parses a command line and runs the matching handler: the whole of `lib`
/// once the handlers are given. A command declared in the registry without a
/// handler parses fully (so usage errors work) and then says it is not
/// implemented yet.
public struct CommandDispatcher: Sendable {
    public let registry: CommandRegistry
    /// By command name; these take precedence over LibCLI's built-in ones.
    public let handlers: [String: CommandHandler]

    public init(registry: CommandRegistry = .lib, handlers: [String: CommandHandler] = [:]) {
        self.registry = registry
        self.handlers = BuiltinCommands.handlers(registry: registry).merging(handlers) { _, given in given }
    }

    /// Runs the arguments after the program name; writes through the context
    /// and returns the exit status. Never throws: errors become their report.
    public func run(_ arguments: [String], context: CommandContext) -> ExitCode {
        // Known before parsing, so that a usage error is JSON too.
        let beforeEnd = arguments.prefix { $0 != "--" }
        var reporting = GlobalOptions(
            json: beforeEnd.contains(GlobalOptionsSyntax.json.longForm), noColor: beforeEnd.contains(GlobalOptionsSyntax.noColor.longForm))
        do {
            switch try CommandLineParser(registry: registry).parse(arguments) {
            case .version:
                context.standardOutput.write("\(ProgramInfo.name) \(ProgramInfo.version)\n")
                return .success
            case .help(let command):
                let help = HelpText(registry: registry)
                context.standardOutput.write(command.map(help.commandHelp) ?? help.programHelp())
                return .success
            case .missingCommand:
                context.standardError.write(HelpText(registry: registry).shortUsage())
                return .usage
            case .run(let parsed):
                guard let handler = handlers[parsed.name] else {
                    throw CommandFailure("'\(parsed.name)' is not implemented yet")
                }
                var context = context
                context.globalOptions = parsed.globalOptions
                reporting = parsed.globalOptions
                return try handler(parsed, context)
            }
        } catch {
            let report = ErrorReport(for: error)
            // Under -q a temporary failure says nothing: the commands that
            // know how long writes have waited (push) speak for themselves.
            if !(reporting.quiet && report.exitCode == .temporaryFailure) {
                var errorContext = context
                errorContext.globalOptions = reporting
                context.standardError.write(report.rendered(reporting, painter: errorContext.errorPainter))
            }
            return report.exitCode
        }
    }

    /// Runs the process's own command line and exits with its status: all
    /// that `main.swift` does.
    public func runAsMain(completionSource: any CompletionSource = NoResourcePaths(),
                          services: CommandServices = CommandServices()) -> Never {
        var context = CommandContext.live()
        context.completionSource = completionSource
        context.services = services
        let status = run(Array(CommandLine.arguments.dropFirst()), context: context)
        context.standardOutput.flush()
        context.standardError.flush()
        exit(status.rawValue)
    }
}
