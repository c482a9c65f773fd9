/// `lib log [PATH] [-n N] [--offline]`
public enum LogSyntax: CommandSyntax {
    public static let name = "log"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "A document, such as books/b-7: its writes, and its server history")
    public static let count = OptionSpec.option(
        "max-count", short: "n", value: "N", .text, "Show at most N writes (and N versions)")
    public static let offline = OptionSpec.flag(
        "offline", "With PATH: leave out the server history; never touch the network")

    public static let command = CommandSpec(
        name: name,
        summary: "Show what this device pushed, and a book's history",
        discussion: """
            Lists the writes this device pushed for the account, newest first: \
            when, the kind (create, change, delete), the path, the fields and \
            their new values, and the ETag of the version the write made. The \
            list is kept on this device with each write the server applied \
            (the newest 10,000 per account), so it works offline and sends no \
            request.

            With a PATH it lists only that document's writes, and adds the \
            book's history from the server: every user's changes, who and \
            when, field by field. When the server cannot be reached it says \
            that part is missing and shows the rest; --offline leaves it out.
            """,
        arguments: [path],
        options: [count, offline],
        examples: [
            .init("lib log", "Everything this device pushed for the account."),
            .init("lib log -n 5", "The five newest writes."),
            .init("lib log books/b-7", "Your writes of books/b-7 and its history on the server."),
        ],
        exitStatuses: [.init(.success, "Done, also when the server history could not be fetched (said in the output)."),
                       .init(.failure), .init(.usage)])
}
