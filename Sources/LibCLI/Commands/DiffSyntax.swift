/// `lib diff [PATH]`
public enum DiffSyntax: CommandSyntax {
    public static let name = "diff"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "Only the writes of this document, such as books/b-7")

    public static let command = CommandSpec(
        name: name,
        summary: "Show what pending writes change, field by field",
        discussion: """
            For each write in the outbox (or only those of PATH): its path, \
            kind and state, then each field it changes, old and new value, against \
            the version it was based on. For a conflict, the server's value \
            is shown beside each field too. Reads this device only; colour on \
            a terminal.
            """,
        arguments: [path],
        examples: [
            .init("lib diff", "What the next push would send."),
            .init("lib diff books/b-7", "Only the writes of books/b-7."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "PATH has no write to show."), .init(.usage)])
}
