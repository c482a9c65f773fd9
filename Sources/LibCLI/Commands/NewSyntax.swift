/// `lib new COLLECTION [FIELD=STRING | FIELD:=JSON ...]`
public enum NewSyntax: CommandSyntax {
    public static let name = "new"

    public static let collection = ArgumentSpec(
        "COLLECTION", .resourcePath, .required, "Where the document goes, such as books")
    public static let assignments = ArgumentSpec(
        "FIELD=STRING | FIELD:=JSON", .assignment, .repeated,
        "Set FIELD to a string, or to any JSON value")

    public static let command = CommandSpec(
        name: name,
        summary: "Make a new document, with an id made here",
        discussion: """
            Makes a new document in COLLECTION with an id made on this device, \
            saves it in the outbox as a create (sent with If-None-Match: *) and \
            prints its path. Works offline.

            The id is a ULID in lower case: 26 letters and digits, the time in \
            milliseconds then 80 random bits, so ids sort by when they were \
            made and two devices never make the same one.

            FIELD=STRING sets a field to a string and FIELD:=JSON to any JSON \
            value. Without assignments, new opens $VISUAL or $EDITOR on the \
            document, as edit does.
            """,
        arguments: [collection, assignments],
        examples: [
            .init("lib new books title=Emma author='Jane Austen' year:=1815", "A new book; prints books/ID."),
            .init("lib new books", "Write the new book in $EDITOR."),
        ],
        exitStatuses: [.init(.success, "Saved on this device."), .init(.failure, "The document breaks a rule (named)."),
                       .init(.usage)])
}
