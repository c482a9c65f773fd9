/// `lib revert PATH`
public enum RevertSyntax: CommandSyntax {
    public static let name = "revert"

    public static let path = ArgumentSpec(
        "PATH", .resourcePath, .required, "A document whose last pushed change to undo, such as books/b-7")

    public static let command = CommandSpec(
        name: name,
        summary: "Undo your last pushed change, as a new write",
        discussion: """
            Queues the inverse of the last write of PATH this device pushed for \
            the account (see lib log): each field it set goes back to the value \
            it had before, and a field it added is removed; a create is undone \
            by a delete, a delete by creating the document as it was. It is an \
            ordinary write, sent by the next push against the version this \
            device last saw.

            If someone changed those fields since, the push is a conflict \
            (exit 3) for lib resolve, never an overwrite. Works offline. A PATH \
            with writes still waiting is refused: push or discard them first.
            """,
        arguments: [path],
        examples: [
            .init("lib revert books/b-7", "Put back what your last pushed change of books/b-7 changed."),
            .init("lib revert books/b-7 && lib push", "... and send it."),
        ],
        exitStatuses: [.init(.success, "Queued, or nothing to undo."),
                       .init(.failure, "No pushed write of PATH is recorded, or writes of PATH are waiting."),
                       .init(.usage)])
}
