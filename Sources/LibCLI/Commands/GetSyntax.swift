/// `lib get PATH [--offline | --fresh] [--timeout DURATION]`
public enum GetSyntax: CommandSyntax {
    public static let name = "get"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .required, "Resource path, such as books or books/b-7")
    public static let offline = OptionSpec.flag(
        "offline", "Print the cached copy; never touch the network")
    public static let fresh = OptionSpec.flag(
        "fresh", "Fail (exit 75) rather than show the cached copy")
    public static let timeout = OptionSpec.option(
        "timeout", value: "DURATION", .duration,
        "Give up on the server after DURATION (90, 90s, 2m, 1.5)")

    public static let command = CommandSpec(
        name: name,
        summary: "Print a resource, fresh or from the cache",
        discussion: """
            Fetches PATH from the server and prints it. When the server cannot \
            be reached (offline, unreachable, 5xx, timed out), prints the cached \
            copy instead and says on standard error how old it is and why, for \
            example "Showing the copy from 3 hours ago. You're offline."

            When a copy is cached, the server has 2 seconds (or --timeout) to \
            answer before the copy is shown: the last known data at once. \
            Without one, lib waits as long as its usual timeouts.

            Writes still waiting in the outbox are shown applied and marked as \
            pending, never as done. Collections such as books are cached too.
            """,
        arguments: [path],
        options: [offline, fresh, timeout],
        exclusiveGroups: [[offline.name, fresh.name]],
        examples: [
            .init("lib get books/b-7", "Print the book, from the server if it can be reached."),
            .init("lib get books --offline", "List the cached books without touching the network."),
            .init("lib --json get books/b-7 --fresh --timeout 2.5", "Only a fresh copy will do."),
        ],
        exitStatuses: [
            .init(.success, "Done, also when the cached copy was shown instead (said on standard error)."),
            .init(.failure, "Not found, or not cached with --offline."), .init(.usage), .init(.authentication),
            .init(.temporaryFailure, "The server could not be reached, with --fresh or with nothing cached."),
        ])
}
