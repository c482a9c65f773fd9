/// `lib resolve [PATH] [--mine | --theirs | --merge | --edit | --discard]`
public enum ResolveSyntax {
    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "The conflicting resource, such as books/b-7")
    public static let mine = OptionSpec.flag(
        "mine", "Keep my version: send it again over theirs")
    public static let theirs = OptionSpec.flag(
        "theirs", "Keep the server's version: drop mine")
    public static let merge = OptionSpec.flag(
        "merge", "Merge field by field when no field clashes")
    public static let edit = OptionSpec.flag(
        "edit", "Edit the merged document in $EDITOR")
    public static let discard = OptionSpec.flag(
        "discard", "Drop a write the server rejected")

    public static let command = CommandSpec(
        name: "resolve",
        summary: "List conflicts, or settle one",
        discussion: """
            Without PATH, lists conflicts and rejected writes. With PATH, shows \
            base, mine and theirs side by side, field by field; an option then \
            settles it. Works offline, from what the server sent when it \
            refused the write.

            --merge succeeds only when no field was changed on both sides; \
            otherwise it names the fields that clash.
            """,
        arguments: [path],
        options: [mine, theirs, merge, edit, discard],
        exclusiveGroups: [[mine.name, theirs.name, merge.name, edit.name, discard.name]],
        examples: [
            .init("lib resolve", "List what needs a decision."),
            .init("lib resolve books/b-7", "Show base, mine and theirs."),
            .init("lib resolve books/b-7 --merge", "Merge, if no field clashes."),
        ],
        exitStatuses: [
            .init(.success), .init(.failure), .init(.usage),
            .init(.attention, "Conflicts or rejected writes remain."),
        ])
}
