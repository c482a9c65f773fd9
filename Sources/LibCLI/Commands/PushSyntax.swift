/// `lib push [--wait DURATION | --watch] [--all] [--dry-run | -n]`
public enum PushSyntax: CommandSyntax {
    public static let name = "push"

    public static let wait = OptionSpec.option(
        "wait", value: "DURATION", .duration,
        "Keep trying for up to DURATION in all (for cron)",
        details: """
            DURATION is seconds (90, 1.5) or has a unit (90s, 2m, 1h). \
            Waits for a network path when offline and retries with backoff when \
            the server is unreachable; exits 75 with the writes kept when the \
            time runs out.
            """)
    public static let watch = OptionSpec.flag(
        "watch", "Run until stopped, pushing each write soon after it is saved (for a service)",
        details: """
            Pushes about a second after each saved write (bursts of edits go \
            together), as soon as a network route appears, and after a backoff \
            while the server is unreachable. One line per push on standard \
            error, each problem once. SIGTERM or SIGINT lets the request on the \
            wire finish and exits 0. With LIB_METERED=defer it holds writes \
            while NetworkManager says the connection is metered. See \
            contrib/systemd/lib-push.service.
            """)
    public static let all = OptionSpec.flag(
        "all", "Push every signed-in account, each with its own token")
    public static let dryRun = OptionSpec.flag(
        "dry-run", short: "n", "Print what would be sent, in order; send and change nothing",
        details: """
            Per account, each write in the order a push takes it: its path,             kind, fields and precondition, and which writes wait behind a             conflict or need lib resolve. Reads this device only: works             offline, needs no keyring.
            """)

    public static let command = CommandSpec(
        name: name,
        summary: "Send pending writes to the server, in order",
        discussion: """
            Sends the writes waiting in the outbox, oldest first, each exactly \
            once. A write is what you changed (the fields set and removed, or a \
            create or a delete), sent against the version you saw; every field \
            you did not touch is the server's. A write whose resource changed \
            on the server meanwhile becomes a conflict (see lib resolve) and \
            later writes of that resource wait behind it; writes of other \
            resources go on. A later write of a resource goes against the \
            version the one before it left, unless a field it sets was changed \
            there by someone else: then it is a conflict too, never an overwrite.

            One push per account runs at a time: an overlapping push waits \
            within its own time and then sends what is left.
            """,
        options: [wait, watch, all, dryRun],
        exclusiveGroups: [[wait.name, watch.name, dryRun.name]],
        examples: [
            .init("lib push", "Send what is pending, now."),
            .init("lib push --wait 60", "From cron: keep trying for up to a minute."),
            .init("lib push --all", "Send every signed-in account's writes."),
            .init("lib push -n --all", "What a push of every account would send, sending nothing."),
            .init("lib push --watch --all", "Keep every account's writes flowing until stopped."),
        ],
        exitStatuses: [
            .init(.success, "Everything was sent."), .init(.failure), .init(.usage),
            .init(.attention, "Conflicts or rejected writes remain: see lib resolve."),
            .init(.authentication, "The server needs you to sign in again."),
            .init(.temporaryFailure, "Offline or the server is unreachable; the writes are kept."),
        ])
}
