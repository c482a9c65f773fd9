import LibBase

/// Everything a command may use from the world outside its arguments,
/// passed in rather than reached for, so that every command runs in tests
/// without a terminal, keyring or network.
public struct CommandContext: Sendable {
    public var standardInput: InputChannel
    public var standardOutput: OutputChannel
    public var standardError: OutputChannel
    /// The environment variables.
    public var environment: [String: String]
    /// The current time (a fixed one in tests).
    public var now: @Sendable () -> UnixTime
    /// The global options of this invocation (set by the dispatcher).
    public var globalOptions: GlobalOptions
    /// Cached resource paths for `lib __complete paths`.
    public var completionSource: any CompletionSource
    /// Store, keyring and transport factories, added by their modules.
    public var services: CommandServices
    private var resolvedDirectories: Result<LibDirectories, CommandFailure>

    public init(
        standardInput: InputChannel = .text(""),
        standardOutput: OutputChannel,
        standardError: OutputChannel,
        environment: [String: String],
        now: @escaping @Sendable () -> UnixTime = { UnixTime.now() },
        globalOptions: GlobalOptions = GlobalOptions(),
        completionSource: any CompletionSource = NoResourcePaths(),
        services: CommandServices = CommandServices()
    ) {
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.environment = environment
        self.now = now
        self.globalOptions = globalOptions
        self.completionSource = completionSource
        self.services = services
        self.resolvedDirectories = Result { () throws(CommandFailure) in
            try LibDirectories.resolve(environment: environment)
        }
    }

    /// The context of the running process: its streams and environment.
    public static func live(
        standardOutput: OutputChannel = .standardOutput(), standardError: OutputChannel = .standardError()
    ) -> CommandContext {
        let environment = ProcessEnvironment.current()
        return CommandContext(
            standardInput: .standardInput(),
            standardOutput: standardOutput,
            standardError: standardError,
            environment: environment,
            now: TestClockOffset.clock(environment))
    }

    /// Where lib's files are (`LIB_HOME`, else XDG). Throws when there is no
    /// home directory to put them in.
    public var directories: LibDirectories {
        get throws(CommandFailure) { try resolvedDirectories.get() }
    }

    /// Replaces the directories (and leaves the environment as it is).
    public mutating func setDirectories(_ directories: LibDirectories) {
        resolvedDirectories = .success(directories)
    }

    /// Whether to colour standard output: only on a terminal (not TERM=dumb),
    /// and neither with `--no-color` nor with `NO_COLOR` set to anything.
    public var colorsStandardOutput: Bool { allowsColor(on: standardOutput) }

    /// Whether to colour standard error, by the same rules.
    public var colorsStandardError: Bool { allowsColor(on: standardError) }

    /// How wide standard output's lines may be: on a terminal, `COLUMNS`
    /// when set, else the terminal's width, else 80; off a terminal no limit
    /// (a script gets whole lines).
    public var outputWidth: Int? {
        guard standardOutput.isTerminal else { return nil }
        if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 { return columns }
        return standardOutput.columns ?? 80
    }

    /// How much to trace: `-v` counted, or `LIB_DEBUG` (1 or 2) when larger.
    public var verbosity: Int {
        max(globalOptions.verbosity, environment["LIB_DEBUG"].flatMap { Int($0) } ?? 0)
    }

    /// Whether `channel` is a terminal that takes escape sequences (colour,
    /// a line redrawn in place): not one whose TERM is `dumb`.
    public func takesEscapes(_ channel: OutputChannel) -> Bool {
        channel.isTerminal && environment["TERM"] != "dumb"
    }

    private func allowsColor(on channel: OutputChannel) -> Bool {
        takesEscapes(channel) && !globalOptions.noColor && (environment["NO_COLOR"] ?? "").isEmpty
    }
}
