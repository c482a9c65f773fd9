/// `lib __complete [--titles] TOPIC [PREFIX]`: the values the completion
/// scripts cannot know by themselves. Hidden.
public enum CompleteSyntax: CommandSyntax {
    public static let name = "__complete"

    /// What to list.
    public enum Topic: String, CaseIterable, Sendable {
        case accounts
        /// Cached documents.
        case paths
        /// The collection, then cached documents.
        case resources
        /// Documents with a conflict.
        case conflicts
        /// Documents this device pushed writes of, the latest first.
        case pushed
        case fields
    }

    public static let titles = OptionSpec.flag(
        "titles", "Each path followed by a tab and its book's title (fish shows it)")

    public static let topic = ArgumentSpec(
        "TOPIC", .choice(Topic.allCases.map(\.rawValue)), .required, "What to list")
    public static let prefix = ArgumentSpec(
        "PREFIX", .text, .optional, "Only values that start with PREFIX")

    public static let command = CommandSpec(
        name: name,
        summary: "Print completion candidates, one a line",
        discussion: """
            For the completion scripts. Reads local files only, never the \
            network or the keyring, and exits 0 even when nothing matches.
            """,
        arguments: [topic, prefix], options: [titles],
        isHidden: true)
}
