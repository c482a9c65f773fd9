import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib edit PATH [FIELD=STRING | FIELD:=JSON ...] [--create] [--delete] [--push]`
///
/// Makes the change against the document as this device knows it, checks
/// what can be checked here (the protocol's fields and types), and saves it
/// in the outbox in one durable transaction; `--push` then sends it. Never
/// waits for a running push: the outbox is shared through SQLite alone.
///
/// Exit 2 when the command line cannot be read (a PATH that is not a
/// document, `FIELD:=` text that is not JSON, `--delete` with fields);
/// exit 1 when the document it would make breaks a rule (the field is named).
enum Edit: Verb {
    static let name = "edit"

    static let path = ArgumentSpec("PATH", .resourcePath, .required, "Resource path, such as books/b-7")
    static let assignments = ArgumentSpec(
        "FIELD=STRING | FIELD:=JSON", .assignment, .repeated,
        "Set FIELD to a string, or to any JSON value")
    static let create = OptionSpec.flag("create", "Create PATH; the server refuses if it exists")
    static let delete = OptionSpec.flag("delete", "Delete PATH")
    static let push = OptionSpec.flag("push", "Push right after saving")

    static let command = CommandSpec(
        name: name, summary: "Change a resource; the change waits in the outbox",
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
        arguments: [path, assignments], options: [create, delete, push],
        exclusiveGroups: [[create.name, delete.name]],
        examples: [
            .init("lib edit books/b-7 title='Dune Messiah' year:=1969", "Change two fields."),
            .init("lib edit books/b-21 --create title=Emma tags:='[\"novel\"]'", "Create a book."),
            .init("lib edit books/b-3 --delete --push", "Delete a book and send it at once."),
            .init("lib edit books/b-7", "Edit the whole document in $EDITOR."),
        ],
        exitStatuses: .usual(success: "Saved on this device (and pushed, with --push).", also: [
            .init(.attention, "With --push: conflicts or rejected writes remain."),
            .init(.authentication, "With --push: the server needs you to sign in again."),
            .init(.temporaryFailure, "With --push: saved, but not sent yet; nothing is lost."),
        ]))

    struct Options {
        var path: ResourcePath
        var id: String
        var assignments: [FieldAssignment]
        var create: Bool
        var delete: Bool
        var push: Bool
    }

    static func options(_ parsed: ParsedCommand) throws(UsageError) -> Options {
        let text = parsed.argument(Edit.path) ?? ""
        let path = try ResourcePath.argument(text)
        guard let id = path.id else {
            throw UsageError(parsed.isSet(Edit.create)
                ? "'\(text)' is a collection: `lib new \(path.collection)` makes a new document in it, with an id made here"
                : "'\(text)' is a collection; edit one of its documents, such as '\(path.collection)/b-7'", command: "edit")
        }
        let assignments = parsed.assignments(Edit.assignments)
        let delete = parsed.isSet(Edit.delete)
        if delete && !assignments.isEmpty {
            throw UsageError("--delete takes no FIELD=VALUE assignments", command: "edit")
        }
        for assignment in assignments { _ = try assignment.jsonValue() }
        return Options(path: path, id: id, assignments: assignments, create: parsed.isSet(Edit.create),
                       delete: delete, push: parsed.isSet(Edit.push))
    }

    static func runsOnline(_ options: Options) -> Bool { options.push }

    /// An edit of a document this device has never seen fetches it first,
    /// so it runs in `lib-online` from the start.
    static func placement(_ options: Options, lookingAt context: CommandContext) -> Placement {
        // Without an account the run says so, wherever it runs.
        guard !options.create, let workspace = try? AccountWorkspace(context) else { return Placement(online: options.push) }
        guard let store = EditBase.existingStore(workspace) else { return Placement(online: true) }
        return Placement(online: options.push || !EditBase.holds(options.path, store), opened: store)
    }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        try run(options, context, opened: nil)
    }

    static func run(_ options: Options, _ context: CommandContext, opened: AccountStore?) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let store = try opened ?? workspace.openStore()
        let key = options.path.description
        let base = try EditBase.load(options.path, store: store, workspace: workspace, fetchIfMissing: !options.create)

        let start: JSONObject
        if options.create {
            if base.document != nil && !base.pendingCreate {
                throw CommandFailure("\(key) already exists (this device has a copy): edit it without --create.")
            }
            start = base.document ?? JSONObject([("id", .string(options.id))])
        } else if let document = base.document {
            start = document
        } else {
            throw CommandFailure("\(key) is deleted on this device (not pushed yet): run `lib discard \(key)` to take the delete back "
                                 + "(or `lib edit \(key) --create` to make a new document in its place).")
        }

        var body: JSONValue?
        if !options.delete {
            guard let changed = try newDocument(from: start, options, rules: try BookRules.forAccount(store), workspace: workspace) else {
                if context.globalOptions.json {
                    let pending = try store.outbox.counts().pending
                    context.standardOutput.write(json(workspace, options, outcome: "unchanged", body: nil, pending: pending).prettyPrinted() + "\n")
                } else if !context.globalOptions.quiet {
                    context.standardOutput.write("Nothing changed; \(key) is as it was.\n")
                }
                return .success
            }
            body = changed
        }

        let intent: WriteIntent
        if options.delete {
            intent = .delete
        } else if options.create && (base.document == nil || base.pendingCreate) {
            intent = .create(body?.objectValue ?? JSONObject())
        } else {
            intent = .change(FieldChanges(from: start, to: body?.objectValue ?? start))
        }
        let outcome = try store.outbox.enqueue(Outbox.NewWrite(
            path: key, intent: intent, baseBody: intent.isCreate ? nil : JSONValue.object(start).serialized(),
            baseETag: intent.isCreate ? nil : base.cached?.etag),
            // The context's clock (a fixed one in LibCommandsTests), as status and diff read ages with it.
            now: context.now().secondsSince1970)
        let outcomeWord: String
        switch outcome {
        case .queued: outcomeWord = "queued"
        case .coalesced: outcomeWord = "coalesced"
        case .cancelled: outcomeWord = "cancelled"
        }
        if context.globalOptions.json {
            var document = json(workspace, options, outcome: outcomeWord, body: body, pending: try store.outbox.counts().pending)
            if options.push {
                var push = AccountPush(workspace: workspace, deadline: nil, lockWait: AccountPush.defaultLockWait,
                                       progress: WaitProgress(context))
                push.massChangeGuard = try MassChangeWords.configured(context)
                let result = push.run()
                if case .object(var object) = document {
                    object["push"] = PushJSON.account(workspace.name, result)
                    document = .object(object)
                }
                context.standardOutput.write(document.prettyPrinted() + "\n")
                if result.exitCode != .success {
                    throw CommandFailure(result.problem?.text ?? result.attention ?? "the push did not finish", exitCode: result.exitCode)
                }
                return .success
            }
            context.standardOutput.write(document.prettyPrinted() + "\n")
            return .success
        }
        if !context.globalOptions.quiet {
            let pending = try store.outbox.counts().pending
            let what = outcome == .cancelled ? "Dropped the unsent creation of \(key)" : "Saved on this device"
            context.standardOutput.write("\(what); \(Wording.writes(pending)) pending for \(workspace.name).\n")
            context.standardOutput.flush()
        }
        guard options.push else { return .success }
        var push = AccountPush(workspace: workspace, deadline: nil, lockWait: AccountPush.defaultLockWait,
                               progress: WaitProgress(context))
        push.massChangeGuard = try MassChangeWords.configured(context)
        let result = push.run()
        Push.report(result, context, workspace: workspace)
        return result.exitCode
    }

    /// `lib edit --json` (docs/json/edit.schema.json): the write as queued.
    private static func json(_ workspace: AccountWorkspace, _ options: Options, outcome: String, body: JSONValue?,
                             pending: Int) -> JSONValue {
        .object(JSONObject([
            ("account", .string(workspace.name)), ("path", .string(options.path.description)),
            ("outcome", .string(outcome)), ("method", .string(options.delete ? "DELETE" : "PUT")),
            ("create", .bool(options.create)), ("body", body ?? .null), ("pending", .integer(Int64(pending))),
        ]))
    }

    /// The document after the change, checked; nil when nothing changed.
    private static func newDocument(from start: JSONObject, _ options: Options, rules: BookRules,
                                    workspace: AccountWorkspace) throws -> JSONValue? {
        let key = options.path.description
        let validate = { (document: JSONValue) in rules.problems(in: document, id: options.id) }
        if options.assignments.isEmpty {
            let editor = DocumentEditor(
                environment: workspace.context.environment,
                introduction: ["\(options.create ? "Creating" : "Editing") \(key) for \(workspace.name).",
                               DocumentEditor.commentRule],
                validate: validate)
            workspace.context.standardOutput.flush()
            return try editor.edit(.object(start), fileName: DocumentEditor.fileName(for: key))
        }
        let changed = JSONValue.object(try FieldAssignment.apply(options.assignments, to: start))
        let problems = FieldAssignment.problemsWithHints(rules.fieldProblems(in: changed, id: options.id), options.assignments)
        guard problems.isEmpty else {
            throw CommandFailure("\(key) was not saved: " + problems.joined(separator: "; ") + ".")
        }
        // `JSONValue` is nil-literal convertible (to JSON null): spell out
        // "no document" so that it can never become a `null` body.
        return changed == .object(start) && !options.create ? Optional<JSONValue>.none : changed
    }
}
