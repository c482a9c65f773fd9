import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib new COLLECTION [FIELD=STRING | FIELD:=JSON ...]`: a new document
/// with an id made on this device (`DocumentID`: a ULID, time-ordered and
/// random), checked as `edit` checks, saved as a create (`If-None-Match:
/// *`) in one durable transaction. Prints the new path on standard output
/// (the only line, so that `$(lib new ...)` is the path). Works offline.
enum New: Verb {
    static let name = "new"

    static let collection = ArgumentSpec(
        "COLLECTION", .resourcePath, .required, "Where the document goes, such as books")
    static let assignments = ArgumentSpec(
        "FIELD=STRING | FIELD:=JSON", .assignment, .repeated,
        "Set FIELD to a string, or to any JSON value")

    static let command = CommandSpec(
        name: name, summary: "Make a new document, with an id made here",
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

    struct Options {
        var collection: String
        var assignments: [FieldAssignment]
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let text = parsed.argument(New.collection) ?? ""
        let path = try ResourcePath.argument(text)
        guard !path.isDocument else {
            throw UsageError("'\(text)' is a document; give its collection, such as '\(path.collection)' (lib new makes the id)",
                             command: New.name)
        }
        let assignments = parsed.assignments(New.assignments)
        for assignment in assignments { _ = try assignment.jsonValue() }
        return Options(collection: path.collection, assignments: assignments)
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        let now = context.now().secondsSince1970
        let id = DocumentID.make(now: now)
        let key = "\(options.collection)/\(id)"
        let rules = try BookRules.forAccount(store)
        let start = JSONObject([("id", .string(id))])
        let validate = { (document: JSONValue) in rules.problems(in: document, id: id) }
        let document: JSONValue
        if options.assignments.isEmpty {
            let editor = DocumentEditor(
                environment: context.environment,
                introduction: ["Creating \(key) for \(workspace.name).", DocumentEditor.commentRule],
                validate: validate)
            context.standardOutput.flush()
            guard let edited = try editor.edit(.object(start), fileName: DocumentEditor.fileName(for: key)) else {
                if !context.globalOptions.quiet { context.standardError.write("Nothing saved: the new document was left as it was.\n") }
                return .success
            }
            document = edited
        } else {
            document = .object(try FieldAssignment.apply(options.assignments, to: start))
            // The id was never saved anywhere: the message does not name it.
            let problems = FieldAssignment.problemsWithHints(rules.fieldProblems(in: document, id: id), options.assignments)
            guard problems.isEmpty else {
                throw CommandFailure("The new document was not saved: " + problems.joined(separator: "; ") + ".")
            }
        }
        guard let object = document.objectValue else { throw CommandFailure("The new document was not saved: a document is a JSON object.") }
        try store.outbox.enqueue(Outbox.NewWrite(path: key, intent: .create(object), baseBody: nil, baseETag: nil), now: now)
        let pending = try store.outbox.counts().pending
        if context.globalOptions.json {
            context.standardOutput.write(JSONValue.object(JSONObject([
                ("account", .string(workspace.name)), ("path", .string(key)), ("id", .string(id)),
                ("body", document), ("pending", .integer(Int64(pending))),
            ])).prettyPrinted() + "\n")
            return .success
        }
        context.standardOutput.write(key + "\n")
        context.standardOutput.flush()
        if !context.globalOptions.quiet {
            context.standardError.write("Saved on this device; \(Wording.writes(pending)) pending for \(workspace.name).\n")
        }
        return .success
    }
}
