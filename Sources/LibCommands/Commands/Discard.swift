import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib discard PATH... | --all [--force] [--yes]` (and `lib restore`, git's
/// name for it): takes back every write
/// of each PATH (pending, in conflict or rejected), in one transaction,
/// sending nothing. Everything that can refuse comes before the first
/// removal: a bad PATH, a PATH with nothing to discard, a write that a push
/// sent and whose answer never came (it may be on the server: only the next
/// push can tell), `--all` without an answer or `--yes`.
enum Discard: Verb {
    static let name = "discard"

    static let paths = ArgumentSpec(
        "PATH", .resourcePath, .repeated, "A document whose writes to take back, such as books/b-7")
    static let all = OptionSpec.flag("all", "Take back every write of the account")
    static let force = OptionSpec.flag(
        "force", "Also take back writes sent without an answer",
        details: "Such a write may already be on the server; discarding it only forgets it here.")
    static let yes = OptionSpec.flag("yes", "Do not ask before --all")

    static let command = CommandSpec(
        name: name, summary: "Take back pending writes",
        discussion: """
            Removes every write of each PATH from the outbox (pending, in \
            conflict or rejected), or every write of the account with --all \
            (asked on a terminal; --yes otherwise). Nothing is sent.

            A write a push sent and whose answer never came may be on the \
            server already: discard refuses it and says when it was sent; \
            push first to learn what happened, or add --force. A write is \
            sent only once its request may have reached the server: one a \
            push could not connect for (refused, offline, DNS, TLS), never \
            got to, or held behind a conflict is not, and goes back freely.
            """,
        arguments: [paths], options: [all, force, yes],
        examples: [
            .init("lib discard books/b-7", "Take back the unsent change of books/b-7."),
            .init("lib discard --all --yes", "Take back every write of the account."),
        ],
        exitStatuses: .usual(failure: "Nothing to discard, a write that may be on the server, or a no."))

    struct Options {
        /// `discard`, or `restore` (git's name for it): the name messages use.
        var command: String = Discard.name
        var paths: [ResourcePath]
        var all: Bool
        var force: Bool
        var yes: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let texts = parsed.arguments(Discard.paths)
        let all = parsed.isSet(Discard.all)
        if all && !texts.isEmpty {
            throw UsageError("give PATHs or --all, not both", command: parsed.name)
        }
        if !all && texts.isEmpty {
            throw UsageError("\(parsed.name) needs a PATH, such as 'books/b-7', or --all; run `lib status` to list the writes", command: parsed.name)
        }
        var paths: [ResourcePath] = []
        for text in texts {
            let path = try ResourcePath.argument(text)
            guard path.isDocument else {
                throw UsageError("'\(text)' is a collection; discard the writes of one of its documents, such as '\(path.collection)/b-7'",
                                 command: parsed.name)
            }
            if !paths.contains(path) { paths.append(path) }
        }
        return Options(command: parsed.name, paths: paths, all: all, force: parsed.isSet(Discard.force),
                       yes: parsed.isSet(Discard.yes))
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        let items = try store.outbox.all()
        let keys = options.all ? try store.outbox.paths() : options.paths.map(\.description)
        if !options.all, let empty = keys.first(where: { key in !items.contains { $0.path == key } }) {
            throw CommandFailure("Nothing to discard for \(empty): it has no pending write for \(workspace.name).")
        }
        let chosen = items.filter { keys.contains($0.path) }
        guard !chosen.isEmpty else {
            if context.globalOptions.json {
                context.standardOutput.write(json(account: workspace.name, paths: [], discarded: 0, left: 0).serialized() + "\n")
            } else if !context.globalOptions.quiet {
                context.standardOutput.write("Nothing to discard for \(workspace.name).\n")
            }
            return .success
        }
        if !options.force, let sent = chosen.first(where: \.mayBeOnServer) {
            let at = LocalTime.describe(sent.updatedAt, now: context.now().secondsSince1970)
            throw CommandFailure("\(sent.path) was not discarded: it was sent at \(at) and no answer came, so it may be on the server. "
                                 + "Push first to learn what happened (`lib push`), or add --force to forget it here anyway.")
        }
        if options.all && !options.yes {
            let question = "Take back \(Wording.writes(chosen.count)) of \(workspace.name) (\(Wording.count(keys.count, "document")))?"
            guard context.standardInput.isTerminal else {
                throw UsageError("--all would take back \(Wording.writes(chosen.count)) of \(workspace.name): add --yes to confirm", command: options.command)
            }
            context.standardOutput.flush()
            guard TerminalPrompt.confirm(question, defaultYes: false) else {
                context.standardError.write("Nothing changed.\n")
                return .failure
            }
        }
        try store.outbox.discard(paths: keys)
        let counts = try store.outbox.counts()
        let left = counts.pending + counts.conflicts + counts.rejected
        if context.globalOptions.json {
            context.standardOutput.write(json(account: workspace.name, paths: keys, discarded: chosen.count, left: left).serialized() + "\n")
        } else if !context.globalOptions.quiet {
            let what = keys.count == 1 ? keys[0] : Wording.count(keys.count, "document")
            var text = "Discarded \(Wording.writes(chosen.count)) of \(what) for \(workspace.name); \(Wording.writes(left)) left.\n"
            if options.force, chosen.contains(where: \.mayBeOnServer) {
                text += "A discarded write had been sent without an answer: run `lib get PATH` to see what the server has.\n"
            }
            context.standardOutput.write(text)
        }
        return .success
    }

    /// `{"account", "paths": [...], "discarded": N, "left": N}`.
    static func json(account: String, paths: [String], discarded: Int, left: Int) -> JSONValue {
        .object(JSONObject([
            ("account", .string(account)), ("paths", .array(paths.map { .string($0) })),
            ("discarded", .integer(Int64(discarded))), ("left", .integer(Int64(left))),
        ]))
    }
}
