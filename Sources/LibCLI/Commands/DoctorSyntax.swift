/// `lib doctor`
public enum DoctorSyntax: CommandSyntax {
    public static let name = "doctor"

    public static let command = CommandSpec(
        name: name,
        summary: "Check the bus, keyring, tokens, stores and servers",
        discussion: """
            Checks what lib needs, one line per check with what it found and, \
            for a problem, how to fix it: how the D-Bus session bus was found \
            (DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus or /run/user/$UID/bus) \
            and whether cron jobs will find it too; whether the Secret Service \
            answers and is unlocked; each account's token; each account's store \
            (PRAGMA quick_check); the network path to each server and whether \
            GET /v1/me answers; the clock against the server's Date; and the \
            proxies in effect.

            Warnings (such as a bus that cron will not find) do not change the \
            exit status; problems do, the worst one deciding it. With --json, \
            one document lists every check (docs/json/doctor.schema.json).
            """,
        examples: [
            .init("lib doctor", "Check everything, for every signed-in account."),
            .init("lib -A alice doctor --json", "The same for one account, for a script."),
        ],
        exitStatuses: [
            .init(.success, "All is well (warnings aside)."),
            .init(.failure, "A store failed its check, or another failure."), .init(.usage),
            .init(.authentication, "No session bus, no Secret Service, a locked keyring, or a token missing or rejected."),
            .init(.temporaryFailure, "A server could not be reached."),
        ])
}
