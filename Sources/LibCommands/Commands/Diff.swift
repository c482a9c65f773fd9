import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib diff [PATH]`: what each write of the outbox changes, field by field,
/// old → new against the version it was based on; for a conflict, the
/// server's value too. Reads the account's store only (never the network
/// or the keyring).
enum Diff: Verb {
    static let name = "diff"

    static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "Only the writes of this document, such as books/b-7")

    static let command = CommandSpec(
        name: name, summary: "Show what pending writes change, field by field",
        discussion: """
            For each write in the outbox (or only those of PATH): its path, \
            kind and state, then each field it changes, old and new value, against \
            the version it was based on. For a conflict, the server's value \
            is shown beside each field too. Reads this device only; colour on \
            a terminal.
            """,
        arguments: [path],
        examples: [
            .init("lib diff", "What the next push would send."),
            .init("lib diff books/b-7", "Only the writes of books/b-7."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "PATH has no write to show."), .init(.usage)])

    struct Options {
        /// Only the writes of this document or collection.
        var path: ResourcePath?
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        try Options(path: parsed.argument(path).map(ResourcePath.argument))
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let path = options.path
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        let writes = try store.outbox.all()
            .filter { item in path.map { $0.isDocument ? item.path == $0.description : item.path.hasPrefix($0.description + "/") } ?? true }
            .map(WriteDescription.init)
        if let path, writes.isEmpty {
            throw CommandFailure("Nothing to show for \(path): it has no pending write for \(workspace.name).")
        }
        let now = context.now().secondsSince1970
        if context.globalOptions.json {
            context.standardOutput.write(json(writes, account: workspace.name).serialized() + "\n")
        } else if writes.isEmpty {
            if !context.globalOptions.quiet { context.standardOutput.write("Nothing pending for \(workspace.name).\n") }
        } else {
            let paint = TextPainter(isEnabled: context.colorsStandardOutput)
            context.standardOutput.write(writes.map { text($0, now: now, paint) }.joined(separator: "\n"))
        }
        return .success
    }

    /// One write, as a heading and a line per field:
    ///
    ///     books/b-7: change, pending, 2 minutes ago
    ///       title: "Dune" → "Dune (alice)"
    ///       year: (none) → 1966
    static func text(_ write: WriteDescription, now: Double, _ paint: TextPainter) -> String {
        let age = AgeWording.describe(seconds: now - write.item.createdAt)
        var text = paint.paint(write.path, .bold) + ": \(write.kind.rawValue), \(write.state), \(age)\n"
        if write.kind == .delete { text += "  " + paint.paint("deletes the document", .red) + "\n" }
        let width = write.changes.map(\.field.count).max() ?? 0
        for change in write.changes {
            var line = "  " + (TerminalText.escaped(change.field) + ":").padding(to: width + 1) + " "
            if change.old != change.new || write.kind == .delete {
                line += paint.paint(show(change.old), .red) + " → " + paint.paint(write.kind == .delete ? "(deleted)" : show(change.new), .green)
            } else {
                line += show(change.new) + " (unchanged here)"
            }
            if case .some(let theirs) = change.theirs { line += "   theirs: " + paint.paint(show(theirs), .yellow) }
            text += line + "\n"
        }
        if write.changes.isEmpty && write.kind != .delete { text += "  no field changed\n" }
        // The server's words: escaped, as every other command shows them.
        if write.item.status == .rejected {
            text += "  rejected: \(write.item.problem.map { TerminalText.escaped($0) } ?? "no reason given")\n"
        }
        return text
    }

    static func show(_ value: JSONValue?) -> String { value?.serialized() ?? "(none)" }

    /// `{"account": ..., "writes": [{"path", "kind", "status", "changes": [{"field", "old", "new", "theirs"}]}]}`;
    /// a field absent on a side is left out of that change.
    static func json(_ writes: [WriteDescription], account: String) -> JSONValue {
        .object(JSONObject([
            ("account", .string(account)),
            ("writes", .array(writes.map { write in
                var object = Status.json(write).objectValue ?? JSONObject()
                object["changes"] = .array(write.changes.map { change in
                    var entry = JSONObject([("field", .string(change.field))])
                    entry["old"] = change.old
                    if write.kind != .delete { entry["new"] = change.new }
                    if case .some(let theirs) = change.theirs { entry["theirs"] = theirs }
                    return .object(entry)
                })
                return .object(object)
            })),
        ]))
    }
}
