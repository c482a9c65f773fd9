/// `lib discard PATH... | --all [--force] [--yes]`
public enum DiscardSyntax: CommandSyntax {
    public static let name = "discard"

    public static let paths = ArgumentSpec(
        "PATH", .resourcePath, .repeated, "A document whose writes to take back, such as books/b-7")
    public static let all = OptionSpec.flag(
        "all", "Take back every write of the account")
    public static let force = OptionSpec.flag(
        "force", "Also take back writes sent without an answer",
        details: "Such a write may already be on the server; discarding it only forgets it here.")
    public static let yes = OptionSpec.flag(
        "yes", "Do not ask before --all")

    public static let command = CommandSpec(
        name: name,
        summary: "Take back pending writes",
        discussion: """
            Removes every write of each PATH from the outbox (pending, in \
            conflict or rejected), or every write of the account with --all \
            (asked on a terminal; --yes otherwise). Nothing is sent.

            A write a push sent and whose answer never came may be on the \
            server already: discard refuses it and says when it was sent; \
            push first to learn what happened, or add --force. A write is \
            sent only once its request may have reached the server: one a \
            push could not connect for (refused, offline, DNS, TLS), never \
            got to, or held behind a conflict is not, and goes back freely.
            """,
        arguments: [paths],
        options: [all, force, yes],
        examples: [
            .init("lib discard books/b-7", "Take back the unsent change of books/b-7."),
            .init("lib discard --all --yes", "Take back every write of the account."),
        ],
        exitStatuses: [
            .init(.success), .init(.failure, "Nothing to discard, a write that may be on the server, or a no."),
            .init(.usage),
        ])
}
