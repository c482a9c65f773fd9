/// What a command line asks for, once parsed.
public enum ParseOutcome: Sendable {
    /// Run a command.
    case run(ParsedCommand)
    /// Show help: for lib (`nil`) or for one command.
    case help(CommandSpec?)
    /// `--version`.
    case version
    /// No command at all: print the short usage and exit 2.
    case missingCommand
}
