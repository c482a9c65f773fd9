/// `lib edit PATH [FIELD=STRING | FIELD:=JSON ...] [--create | --delete] [--push]`
public enum EditSyntax: CommandSyntax {
    public static let name = "edit"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .required, "Resource path, such as books/b-7")
    public static let assignments = ArgumentSpec(
        "FIELD=STRING | FIELD:=JSON", .assignment, .repeated,
        "Set FIELD to a string, or to any JSON value")
    public static let create = OptionSpec.flag(
        "create", "Create PATH; the server refuses if it exists")
    public static let delete = OptionSpec.flag(
        "delete", "Delete PATH")
    public static let push = OptionSpec.flag(
        "push", "Push right after saving")

    public static let command = CommandSpec(
        name: name,
        summary: "Change a resource; the change waits in the outbox",
        discussion: """
            Saves a change to PATH durably on this device and prints how many \
            writes are pending; push sends them. Each change remembers the \
            version it was made against, so a change made meanwhile on the \
            server becomes a conflict to resolve instead of being overwritten.

            FIELD=STRING sets a field to a string and FIELD:=JSON to any JSON \
            value (httpie's convention). Without assignments, edit opens \
            $VISUAL or $EDITOR on the JSON document: invalid JSON reopens the \
            editor with the error on top, and an unchanged file changes nothing.
            """,
        arguments: [path, assignments],
        options: [create, delete, push],
        exclusiveGroups: [[create.name, delete.name]],
        examples: [
            .init("lib edit books/b-7 title='Dune Messiah' year:=1969", "Change two fields."),
            .init("lib edit books/b-21 --create title=Emma tags:='[\"novel\"]'", "Create a book."),
            .init("lib edit books/b-3 --delete --push", "Delete a book and send it at once."),
            .init("lib edit books/b-7", "Edit the whole document in $EDITOR."),
        ],
        exitStatuses: [
            .init(.success, "Saved on this device (and pushed, with --push)."), .init(.failure), .init(.usage),
            .init(.attention, "With --push: conflicts or rejected writes remain."),
            .init(.authentication, "With --push: the server needs you to sign in again."),
            .init(.temporaryFailure, "With --push: saved, but not sent yet; nothing is lost."),
        ])
}
