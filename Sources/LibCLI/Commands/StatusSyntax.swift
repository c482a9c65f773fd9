/// `lib status [--short | -s | --porcelain | --prompt] [--all]`
public enum StatusSyntax: CommandSyntax {
    public static let name = "status"

    public static let short = OptionSpec.flag(
        "short", short: "s", "One line per pending write or conflict",
        details: "git's status --short shape: '## ACCOUNT', then 'XY PATH' per write; X is A (create), M (change) or D (delete), Y is a space (pending), S (sent, no answer yet), U (conflict) or R (rejected).")
    public static let porcelain = OptionSpec.flag(
        "porcelain", "Stable output for scripts",
        details: "The account's counters as 'key value' lines, then one 'write STATUS KIND ATTEMPTS CREATED PATH FIELDS' line per write, then a blank line (docs/CLI.md).")
    public static let prompt = OptionSpec.flag(
        "prompt", "The account's segment for a shell prompt",
        details: "The user name (with the host when another account shares it), then the writes pending, conflicts, rejected and set aside, each a mark and a count: 'alice +3 =1 x2 ~4' when the locale is not UTF-8, arrows and symbols when it is; nothing at all when nothing waits. Read from the account's prompt file, which the snippets in contrib/prompt read without starting lib.")
    public static let all = OptionSpec.flag(
        "all", "Show every signed-in account")

    public static let command = CommandSpec(
        name: name,
        summary: "Show pending writes, conflicts and the account",
        discussion: """
            Shows the account, then each write waiting to be pushed and each \
            conflict and rejected write that needs a decision: its path, kind \
            (create, change, delete), the fields it changes, its age, and for \
            a write a push already sent, the attempts and the last error. \
            Reads this device only: never the network, D-Bus or the keyring.

            --porcelain and --json print formats for scripts that do not change \
            between versions. --prompt is the one-liner for shell prompts.
            """,
        options: [short, porcelain, prompt, all],
        exclusiveGroups: [[short.name, porcelain.name, prompt.name]],
        examples: [
            .init("lib status", "What is pending for the current account, write by write."),
            .init("lib status --short", "The same, one line per write."),
            .init("lib status --prompt", "One line, for a shell prompt."),
            .init("lib status --porcelain --all", "Every account, for a script."),
        ],
        exitStatuses: [.init(.success), .init(.failure), .init(.usage)])
}
