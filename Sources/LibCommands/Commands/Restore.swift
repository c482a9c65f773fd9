import LibCLI
import LibBase

/// `lib restore PATH... | --all [--force] [--yes]`: git's name for `lib
/// discard`, and the same command: its options, its checks, its run.
enum Restore: Verb {
    static let name = "restore"

    static let command = CommandSpec(
        name: name, summary: "Take back pending writes (the same as discard)",
        discussion: """
            The same command as lib discard, under git's name (git restore \
            takes a change back): removes every write of each PATH from the \
            outbox, or every write of the account with --all, and refuses a \
            write sent without an answer unless --force. Nothing is sent.
            """,
        arguments: Discard.command.arguments,
        options: Discard.command.options,
        examples: [
            .init("lib restore books/b-7", "Take back the unsent change of books/b-7."),
        ],
        exitStatuses: Discard.command.exitStatuses)

    static func options(_ parsed: ParsedCommand) throws -> Discard.Options { try Discard.options(parsed) }

    static func runsOnline(_ options: Discard.Options) -> Bool { Discard.runsOnline(options) }

    static func run(_ options: Discard.Options, _ context: CommandContext) throws -> ExitCode {
        try Discard.run(options, context)
    }
}
