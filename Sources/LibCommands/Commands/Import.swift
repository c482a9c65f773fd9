import LibAccounts
import LibBase
import LibCLI
import LibClient
import LibJSON
import LibSync

/// `lib import FILE [--dry-run]`: lines as `lib export` writes them become
/// outbox writes (`ImportPlan`), all queued in one durable transaction;
/// nothing is sent (`lib push` sends them, and its mass-change guard stops
/// a large destructive push). Every line is read and checked first: a bad
/// file queues nothing. Works offline, in the static `lib`.
enum Import: Verb {
    static let name = "import"

    static let file = ArgumentSpec("FILE", .text, .required, "Lines as lib export writes them; - reads standard input")
    static let dryRun = OptionSpec.flag("dry-run", short: "n", "Say what would be queued, and queue nothing")

    static let command = CommandSpec(
        name: name,
        summary: "Queue the writes that make the library match a file",
        discussion: """
            Reads FILE, one book a line as lib export writes it, and queues in \
            the outbox the writes that make this device's library match it: \
            a create for a book that is not here, a change of only the fields \
            that differ for one that is, a delete for a line with "deleted": \
            true. A line equal to the book queues nothing, so importing the \
            same file twice queues nothing the second time. Nothing is sent: \
            run lib push.

            A change goes against the version the line names (its etag): \
            when the server has changed a field since, the push makes it a \
            conflict to settle with lib resolve, never an overwrite. A line \
            without etag goes against the version on this device.

            Every line is checked first (JSON, members, id and path, and the \
            fields against the book schema); a bad line is named by its \
            number and nothing is queued (exit 2). The offline library must \
            be complete: run lib pull first.
            """,
        arguments: [file], options: [dryRun],
        examples: [
            .init("lib import library.ndjson", "Queue the writes; then lib push."),
            .init("lib import --dry-run library.ndjson", "Count them only."),
            .init("lib -A alice export | lib -A bob@other.example.org import -", "Copy a library to another account."),
        ],
        exitStatuses: [
            .init(.success, "Queued (or, with --dry-run, counted)."),
            .init(.failure, "The offline library is not complete yet (run lib pull), or FILE could not be read."),
            .init(.usage, "A bad command line, or a bad line in FILE (each named); nothing queued."),
        ])

    struct Options: Equatable {
        /// nil: standard input.
        var file: String?
        var dryRun: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let path = parsed.argument(file) ?? ""
        if path.isEmpty { throw UsageError("FILE is empty; give a file, or - for standard input", command: name) }
        return Options(file: path == "-" ? nil : path, dryRun: parsed.isSet(dryRun))
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        // Checked before the file is read: a file is no use without it.
        let store = try Export.completeLibrary(workspace, doing: options.dryRun ? "counted" : "queued") { _ in try workspace.openStore() }
        let text = try read(options.file, context)
        let parsed = ImportFile(text: text, rules: try BookRules.forAccount(store))
        guard parsed.problems.isEmpty else {
            let source = options.file ?? "standard input"
            throw CommandFailure("Nothing queued: \(Wording.count(parsed.problems.count, "line")) of \(source) "
                                 + "\(parsed.problems.count == 1 ? "is" : "are") not a book lib import can read:\n" + parsed.report,
                                 exitCode: .usage, reason: "bad-import-line")
        }
        let now = context.now().secondsSince1970
        // The plan is made in the transaction that queues it: no edit or push comes between.
        let plan = try store.database.write { db in
            let plan = try ImportPlan(parsed.lines, cache: store.cache, outbox: store.outbox)
            if !options.dryRun {
                for write in plan.writes { try store.outbox.enqueue(write, now: now) }
            }
            return plan
        }
        let pending = try store.outbox.counts().pending
        if context.globalOptions.json {
            context.standardOutput.write(JSONValue.object(JSONObject([
                ("account", .string(workspace.name)), ("dry_run", .bool(options.dryRun)),
                ("writes", .integer(Int64(plan.count))), ("creates", .integer(Int64(plan.creates))),
                ("updates", .integer(Int64(plan.updates))), ("deletes", .integer(Int64(plan.deletes))),
                ("unchanged", .integer(Int64(plan.unchanged))), ("pending", .integer(Int64(pending))),
            ])).prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            let counts = "\(Wording.writes(plan.count)) (\(Wording.count(plan.creates, "create")), "
                + "\(Wording.count(plan.updates, "update")), \(Wording.count(plan.deletes, "delete")))"
            let next = plan.count == 0 ? "the library already matches all \(Wording.count(plan.unchanged, "line"))"
                : options.dryRun ? "nothing queued (--dry-run)" : "run `\(workspace.lib) push`"
            context.standardOutput.write("\(options.dryRun ? "Would queue" : "Queued") \(counts) for \(workspace.name); \(next).\n")
        }
        return .success
    }

    /// The file's text, or standard input's.
    private static func read(_ file: String?, _ context: CommandContext) throws -> String {
        guard let file else { return String(decoding: context.standardInput.readAll(), as: UTF8.self) }
        let text: String?
        do { text = try PrivateFile.read(file) } catch { throw CommandFailure("Nothing queued: \(error).") }
        guard let text else { throw CommandFailure("Nothing queued: there is no file \(file).") }
        return text
    }
}
