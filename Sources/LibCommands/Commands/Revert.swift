import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib revert PATH`: queues the inverse of this account's last pushed
/// write of PATH (`Revert`, LibSync) as an ordinary write: the fields it
/// set back to their values before, a create undone by a delete, a delete
/// by a create of the document it deleted. It goes against the version
/// this device last saw; when this device has seen someone change what it
/// puts back, against the version the pushed write made, so that the push
/// is a conflict (exit 3) and never overwrites the other change. Works
/// offline; sends nothing.
enum Revert: Verb {
    static let name = "revert"

    static let path = ArgumentSpec(
        "PATH", .pushedPath, .required, "A document whose last pushed change to undo, such as books/b-7")

    static let command = CommandSpec(
        name: name, summary: "Undo your last pushed change, as a new write",
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

    struct Options {
        var path: ResourcePath
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let text = parsed.argument(Revert.path) ?? ""
        let path = try ResourcePath.argument(text)
        guard path.isDocument else {
            throw UsageError("'\(text)' is a collection; revert a change of one of its documents, such as '\(path.collection)/b-7'",
                             command: name)
        }
        return Options(path: path)
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let key = options.path.description
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        guard let pushed = try store.pushedLog.last(of: key) else {
            throw CommandFailure("Nothing to revert: this device has no record of a write of \(key) pushed for \(workspace.name) (`\(workspace.lib) log` lists them).")
        }
        let waiting = try store.outbox.items(for: key)
        guard waiting.isEmpty else {
            throw CommandFailure("\(key) was not reverted: it has \(Wording.writes(waiting.count)) waiting for \(workspace.name). "
                                 + "Push \(waiting.count == 1 ? "it" : "them") first (`\(workspace.lib) push`), or take \(waiting.count == 1 ? "it" : "them") back (`\(workspace.lib) discard \(key)`).")
        }
        let now = context.now().secondsSince1970
        let when = LocalTime.describe(pushed.pushedAt, now: now)
        switch Reversal.outcome(undoing: pushed, cached: try store.cache.document(at: key)) {
        case .unknownContent:
            throw CommandFailure("\(key) cannot be reverted: this device never had the document its delete removed.")
        case .nothingToUndo:
            if context.globalOptions.json {
                context.standardOutput.write(json(workspace.name, pushed, outcome: "unchanged", intent: nil,
                                                  pending: try store.outbox.counts().pending).prettyPrinted() + "\n")
            } else if !context.globalOptions.quiet {
                context.standardOutput.write("Nothing to revert: \(key) already is as it was before your \(pushed.kind.rawValue) of \(when).\n")
            }
            return .success
        case .write(var write, let againstSeen):
            write.reverts = pushed.id
            try store.outbox.enqueue(write, now: now)
            let pending = try store.outbox.counts().pending
            if context.globalOptions.json {
                context.standardOutput.write(json(workspace.name, pushed, outcome: "queued", intent: write.intent,
                                                  pending: pending).prettyPrinted() + "\n")
                return .success
            }
            guard !context.globalOptions.quiet else { return .success }
            var lines = "Queued the revert of your \(pushed.kind.rawValue) of \(key) (\(when)): "
                + TerminalText.escaped(PushedLogView.fieldsText(write.intent)) + "\n"
            if !againstSeen {
                lines += "Someone changed \(key) since (this device has seen it): the push will be a conflict for `\(workspace.lib) resolve \(key)`, not an overwrite.\n"
            }
            lines += "Saved on this device; \(Wording.writes(pending)) pending for \(workspace.name).\n"
            context.standardOutput.write(lines)
            return .success
        }
    }

    /// `lib revert --json` (docs/json/revert.schema.json).
    static func json(_ account: String, _ pushed: PushedWrite, outcome: String, intent: WriteIntent?, pending: Int) -> JSONValue {
        .object(JSONObject([
            ("account", .string(account)), ("path", .string(pushed.path)), ("outcome", .string(outcome)),
            ("reverts", PushedLogView.json(pushed)),
            ("kind", intent.map { .string(kind(of: $0)) } ?? .null),
            ("pending", .integer(Int64(pending))),
        ]))
    }

    private static func kind(of intent: WriteIntent) -> String {
        switch intent {
        case .create: "create"
        case .change: "change"
        case .delete: "delete"
        }
    }
}
