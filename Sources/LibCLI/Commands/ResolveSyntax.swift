/// `lib resolve [PATH] [--mine | --theirs [--whole] | --merge | --edit | --discard] [--yes]`
public enum ResolveSyntax: CommandSyntax {
    public static let name = "resolve"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "The conflicting resource, such as books/b-7")
    public static let mine = OptionSpec.flag(
        "mine", "Settle the clashing fields with my values",
        details: "Every field changed on one side only keeps that change, as git's merge -X ours does.")
    public static let theirs = OptionSpec.flag(
        "theirs", "Settle the clashing fields with the server's values",
        details: "Every field changed on one side only keeps that change, as git's merge -X theirs does.")
    public static let whole = OptionSpec.flag(
        "whole", "With --mine or --theirs: take that whole document",
        details: "Replaces the document with one side, reverting the other side's changes; lib names the fields it reverts and asks on a terminal (--yes otherwise).")
    public static let merge = OptionSpec.flag(
        "merge", "Merge field by field when no field clashes")
    public static let edit = OptionSpec.flag(
        "edit", "Edit the merge in $EDITOR, both values of each clash marked")
    public static let discard = OptionSpec.flag(
        "discard", "Drop the write (the same as lib discard PATH)")
    public static let yes = OptionSpec.flag(
        "yes", "Do not ask before --whole reverts changes")

    public static let command = CommandSpec(
        name: name,
        summary: "List conflicts, or settle one",
        discussion: """
            Without PATH, lists conflicts and rejected writes. With PATH, shows \
            base, mine and theirs side by side, field by field, and what each \
            choice would do; an option then settles it. Works offline, from \
            what the server sent when it refused the write.

            --mine and --theirs choose a side only for the fields changed on \
            both sides; every other change, from either side, is kept. \
            --mine --whole and --theirs --whole replace the whole document with \
            one side: they name the fields of the other side they revert, and \
            ask first. --merge succeeds only when no field was changed on both \
            sides; otherwise it names the fields that clash. --edit opens the \
            merge with both values of each clash between markers, and refuses \
            to save while a marker is left.
            """,
        arguments: [path],
        options: [mine, theirs, whole, merge, edit, discard, yes],
        exclusiveGroups: [[mine.name, theirs.name, merge.name, edit.name, discard.name]],
        examples: [
            .init("lib resolve", "List what needs a decision."),
            .init("lib resolve books/b-7", "Show base, mine and theirs."),
            .init("lib resolve books/b-7 --merge", "Merge, if no field clashes."),
            .init("lib resolve books/b-7 --mine", "My values where both changed; every other change kept."),
            .init("lib resolve books/b-7 --theirs --whole", "The server's document as it is, dropping all of mine."),
        ],
        exitStatuses: [
            .init(.success), .init(.failure), .init(.usage),
            .init(.attention, "Conflicts or rejected writes remain."),
        ])
}
