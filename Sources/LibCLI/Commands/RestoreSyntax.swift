/// `lib restore PATH... | --all [--force] [--yes]`: git's name for `lib discard`.
public enum RestoreSyntax: CommandSyntax {
    public static let name = "restore"

    public static let command = CommandSpec(
        name: name,
        summary: "Take back pending writes (the same as discard)",
        discussion: """
            The same command as lib discard, under git's name (git restore \
            takes a change back): removes every write of each PATH from the \
            outbox, or every write of the account with --all, and refuses a \
            write sent without an answer unless --force. Nothing is sent.
            """,
        arguments: DiscardSyntax.command.arguments,
        options: DiscardSyntax.command.options,
        examples: [
            .init("lib restore books/b-7", "Take back the unsent change of books/b-7."),
        ],
        exitStatuses: DiscardSyntax.command.exitStatuses)
}
