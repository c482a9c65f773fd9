#if canImport(Glibc)
import Glibc
import LibBase
#endif

/// Parses a command line and runs the matching handler: the whole of `lib`
/// once the handlers are given. A command declared in the registry without a
/// handler parses fully (so usage errors work) and then says it is not
/// implemented yet.
///
/// Nothing is built before it is needed: the handler of the one command
/// named, its context once the line has parsed. `lib --version` runs in
/// every shell prompt's neighbourhood and pays for nothing else.
public struct CommandDispatcher: Sendable {
    public let registry: CommandRegistry
    /// By command name; these take precedence over LibCLI's built-in ones.
    private let givenHandler: @Sendable (String) -> CommandHandler?
    /// The process ends as the error asks (`ErrorReport.endsByInterrupt`):
    /// only in `runAsMain`, never in a test that runs commands in-process.
    private var endsProcess = false

    public init(registry: CommandRegistry, handlers: [String: CommandHandler] = [:]) {
        self.init(registry: registry) { handlers[$0] }
    }

    public init(registry: CommandRegistry, handler: @escaping @Sendable (_ command: String) -> CommandHandler?) {
        self.registry = registry
        self.givenHandler = handler
    }

    /// The handler that runs this command: the one given, else LibCLI's own.
    public func handler(named name: String) -> CommandHandler? {
        givenHandler(name) ?? BuiltinCommands.handler(named: name, registry: registry)
    }

    /// Runs the arguments after the program name; writes through the context
    /// and returns the exit status. Never throws: errors become their report.
    public func run(_ arguments: [String], context: CommandContext) -> ExitCode {
        run(arguments, output: context.standardOutput, errors: context.standardError, makeContext: { context })
    }

    /// `run`, making the context (its environment, its services) only for a
    /// command that runs or an error to report: `--version` and help only print.
    private func run(
        _ arguments: [String], output: OutputChannel, errors: OutputChannel, makeContext: () -> CommandContext
    ) -> ExitCode {
        // Known before parsing, so that a usage error is JSON too.
        let beforeEnd = arguments.prefix { $0 != "--" }
        let reporting = GlobalOptions(
            json: beforeEnd.contains(GlobalOptionsSyntax.json.longForm), noColor: beforeEnd.contains(GlobalOptionsSyntax.noColor.longForm))
        do {
            switch try CommandLineParser(registry: registry).parse(arguments) {
            case .version:
                output.write("\(ProgramInfo.name) \(ProgramInfo.version)\n")
                return .success
            case .help(let command):
                let help = HelpText(registry: registry)
                output.write(command.map(help.commandHelp) ?? help.programHelp())
                return .success
            case .missingCommand:
                errors.write(HelpText(registry: registry).shortUsage())
                return .usage
            case .run(let parsed):
                return runCommand(parsed, context: makeContext())
            }
        } catch {
            return report(error, reporting, context: makeContext())
        }
    }

    private func runCommand(_ parsed: ParsedCommand, context: CommandContext) -> ExitCode {
        do {
            guard let handler = handler(named: parsed.name) else {
                throw CommandFailure("'\(parsed.name)' is not implemented yet")
            }
            var context = context
            context.globalOptions = parsed.globalOptions
            if parsed.globalOptions.json {
                context.standardOutput = context.standardOutput.writingAsGiven()
                context.standardError = context.standardError.writingAsGiven()
            }
            return try handler(parsed, context)
        } catch {
            return report(error, parsed.globalOptions, context: context)
        }
    }

    /// Writes the error's report on standard error and returns its exit status.
    private func report(_ error: any Error, _ reporting: GlobalOptions, context: CommandContext) -> ExitCode {
        let report = ErrorReport(for: error)
        // Under -q a temporary failure says nothing: the commands that
        // know how long writes have waited (push) speak for themselves.
        if !(reporting.quiet && report.exitCode == .temporaryFailure) {
            var errorContext = context
            errorContext.globalOptions = reporting
            let width = context.standardError.isTerminal ? context.standardError.columns : nil
            context.standardError.write(report.rendered(reporting, painter: errorContext.errorPainter, width: width))
        }
        if endsProcess && report.endsByInterrupt {
            context.standardOutput.flush()
            context.standardError.flush()
            Self.endByInterrupt()
        }
        return report.exitCode
    }

    /// Runs the process's own command line and exits with its status: all
    /// that `main.swift` does. The completion source and the services are
    /// made only for a command that runs.
    public func runAsMain(completionSource: @autoclosure () -> any CompletionSource = NoResourcePaths(),
                          services: @autoclosure () -> CommandServices = CommandServices()) -> Never {
        let output = OutputChannel.standardOutput()
        let errors = OutputChannel.standardError()
        var main = self
        main.endsProcess = true
        let status = main.run(Array(CommandLine.arguments.dropFirst()), output: output, errors: errors) {
            var context = CommandContext.live(standardOutput: output, standardError: errors)
            context.completionSource = completionSource()
            context.services = services()
            return context
        }
        output.flush()
        errors.flush()
        exit(Self.statusAfterWriting(status, output: output, errors: errors).rawValue)
    }

    /// Ends the process by SIGINT, with its default action (status 130 in a shell).
    private static func endByInterrupt() -> Never {
        signal(SIGINT, SIG_DFL)
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
        raise(SIGINT)
        exit(130)
    }

    /// Output that did not reach standard output (a full disk, a closed
    /// descriptor) fails the command, as git's does; a reader that went away
    /// (`| head -1`, EPIPE) ends it quietly.
    static func statusAfterWriting(_ status: ExitCode, output: OutputChannel, errors: OutputChannel) -> ExitCode {
        guard let error = output.writeError, error != EPIPE else { return status }
        errors.write("lib: couldn't write to standard output: \(String(cString: strerror(error)))\n")
        return status == .success ? .failure : status
    }
}
