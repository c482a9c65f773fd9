/// `lib status [--short | --porcelain] [--all]`
public enum StatusSyntax {
    public static let short = OptionSpec.flag(
        "short", "One line per pending write or conflict")
    public static let porcelain = OptionSpec.flag(
        "porcelain", "Stable output for scripts")
    public static let all = OptionSpec.flag(
        "all", "Show every signed-in account")

    public static let command = CommandSpec(
        name: "status",
        summary: "Show pending writes, conflicts and the account",
        discussion: """
            Shows the account, the writes waiting to be pushed and the conflicts \
            and rejected writes that need a decision. Reads this device only: \
            never the network, D-Bus or the keyring, so it is fast enough for a \
            shell prompt.

            --porcelain and --json print formats for scripts that do not change \
            between versions.
            """,
        options: [short, porcelain, all],
        exclusiveGroups: [[short.name, porcelain.name]],
        examples: [
            .init("lib status", "What is pending for the current account."),
            .init("lib status --short", "The same, one line per write."),
            .init("lib status --porcelain --all", "Every account, for a script."),
        ],
        exitStatuses: [.init(.success), .init(.failure), .init(.usage)])
}
