import LibCLI
import LibJSON
import LibStore
import LibSync
import LibBase
import LibClient

/// `lib resolve [PATH] [--mine | --theirs [--whole] | --merge | --edit | --discard] [--yes]`
///
/// Lists the account's conflicts and rejected writes, shows one (base, mine
/// and theirs, field by field, and what each choice would do), or settles
/// it. Works offline, from what the server's 412 answer stored in the
/// outbox: never the network, never the keyring.
///
/// `--mine`/`--theirs` choose a side for the clashing fields only (git's
/// `merge -X ours/theirs`); `--whole` replaces the whole document with one
/// side, after naming what it reverts.
///
/// Exit 0 when settled (or nothing to resolve, without PATH); 3 when
/// something still waits for a decision (a listing, a display, a merge whose
/// fields clash); 1 when PATH has nothing to resolve or a question was
/// answered no; 2 for a bad PATH or an option that does not fit the write
/// (such as --mine on a rejected write, or --whole off a terminal without --yes).
enum Resolve: Verb {
    static let name = "resolve"

    static let path = ArgumentSpec("PATH", .conflictPath, .optional, "The conflicting resource, such as books/b-7")
    static let mine = OptionSpec.flag(
        "mine", "Settle the clashing fields with my values",
        details: "Every field changed on one side only keeps that change, as git's merge -X ours does.")
    static let theirs = OptionSpec.flag(
        "theirs", "Settle the clashing fields with the server's values",
        details: "Every field changed on one side only keeps that change, as git's merge -X theirs does.")
    static let whole = OptionSpec.flag(
        "whole", "With --mine or --theirs: take that whole document",
        details: "Replaces the document with one side, reverting the other side's changes; lib names the fields it reverts and asks on a terminal (--yes otherwise).")
    static let merge = OptionSpec.flag("merge", "Merge field by field when no field clashes")
    static let edit = OptionSpec.flag("edit", "Edit the merge in $EDITOR, both values of each clash marked")
    static let discard = OptionSpec.flag("discard", "Drop the write (the same as lib discard PATH)")
    static let yes = OptionSpec.flag("yes", "Do not ask before --whole reverts changes")

    static let command = CommandSpec(
        name: name, summary: "List conflicts, or settle one",
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
        arguments: [path], options: [mine, theirs, whole, merge, edit, discard, yes],
        exclusiveGroups: [[mine.name, theirs.name, merge.name, edit.name, discard.name]],
        examples: [
            .init("lib resolve", "List what needs a decision."),
            .init("lib resolve books/b-7", "Show base, mine and theirs."),
            .init("lib resolve books/b-7 --merge", "Merge, if no field clashes."),
            .init("lib resolve books/b-7 --mine", "My values where both changed; every other change kept."),
            .init("lib resolve books/b-7 --theirs --whole", "The server's document as it is, dropping all of mine."),
        ],
        exitStatuses: .usual(also: [
            .init(.attention, "Conflicts or rejected writes remain."),
        ]))

    enum Action: Equatable {
        case mine(whole: Bool), theirs(whole: Bool), merge, edit, discard

        var spelling: String {
            switch self {
            case .mine(let whole): return whole ? "--mine --whole" : "--mine"
            case .theirs(let whole): return whole ? "--theirs --whole" : "--theirs"
            case .merge: return "--merge"
            case .edit: return "--edit"
            case .discard: return "--discard"
            }
        }
    }

    struct Options {
        /// nil: list what waits.
        var path: ResourcePath?
        /// nil: show the conflict.
        var action: Action?
        var yes: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let action = try action(parsed)
        var path: ResourcePath?
        if let text = parsed.argument(Resolve.path) {
            let parsedPath = try ResourcePath.argument(text)
            guard parsedPath.isDocument else {
                throw UsageError("'\(text)' is a collection; resolve one of its documents, such as '\(parsedPath.collection)/b-7'",
                                 command: "resolve")
            }
            path = parsedPath
        }
        if path == nil, let action {
            throw UsageError("\(action.spelling) needs a PATH, such as 'books/b-7'; run `lib resolve` to list what waits",
                             command: "resolve")
        }
        return Options(path: path, action: action, yes: parsed.isSet(yes))
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func action(_ parsed: ParsedCommand) throws(UsageError) -> Action? {
        let whole = parsed.isSet(Resolve.whole)
        let action: Action?
        if parsed.isSet(Resolve.mine) { action = .mine(whole: whole) }
        else if parsed.isSet(Resolve.theirs) { action = .theirs(whole: whole) }
        else if parsed.isSet(Resolve.merge) { action = .merge }
        else if parsed.isSet(Resolve.edit) { action = .edit }
        else if parsed.isSet(Resolve.discard) { action = .discard }
        else { action = nil }
        if whole {
            switch action {
            case .mine, .theirs: break
            default: throw UsageError("--whole goes with --mine or --theirs: it takes that side's whole document", command: "resolve")
            }
        }
        return action
    }

    /// " bob@host has one: run `lib -A bob@host resolve books/b-8`." for
    /// each other account whose store holds a conflict or rejected write of
    /// `key` (read-only; an unreadable store says nothing).
    static func elsewhere(_ key: String, besides workspace: AccountWorkspace) -> String {
        var text = ""
        for account in workspace.index.accounts where account.name != workspace.name {
            let other = AccountWorkspace(workspace.context, paths: workspace.paths, index: workspace.index, account: account)
            guard let store = try? AccountStore(readingFrom: workspace.paths.storePath(account.name)),
                  let item = (try? store.outbox.items(for: key))?.first(where: { $0.status != .pending })
            else { continue }
            text += " \(account.name) has \(item.status == .conflict ? "a conflict" : "a rejected write") there:"
                + " run `\(other.lib) resolve \(key)`."
        }
        return text
    }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let action = options.action
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        guard let path = options.path else { return try list(store, workspace) }

        let key = path.description
        let items = try store.outbox.items(for: key)
        guard let index = items.firstIndex(where: { $0.status != .pending }) else {
            throw CommandFailure("Nothing to resolve for \(key): it has no conflict or rejected write for \(workspace.name)."
                                 + elsewhere(key, besides: workspace))
        }
        let write = Write(path: path, item: items[index], later: Array(items[(index + 1)...]))
        let resolution = Resolution(write: write, store: store, workspace: workspace, confirmed: options.yes)
        guard let action else { return try resolution.show() }
        let code: ExitCode
        switch action {
        case .mine(let whole): code = try whole ? resolution.keepWholeMine() : resolution.keepMine()
        case .theirs(let whole): code = try whole ? resolution.keepWholeTheirs() : resolution.keepTheirs()
        case .merge: code = try resolution.merge()
        case .edit: code = try resolution.edit()
        case .discard: code = try resolution.discard()
        }
        if context.globalOptions.json {
            context.standardOutput.write(try resolution.settledJSON(choice: action.spelling).serialized() + "\n")
        }
        return code
    }

    /// Every conflict and rejected write of the account, oldest first.
    static func list(_ store: AccountStore, _ workspace: AccountWorkspace) throws -> ExitCode {
        let context = workspace.context
        let waiting = try store.outbox.all().filter { $0.status != .pending }
        if context.globalOptions.json {
            let entries = waiting.map { item -> JSONValue in
                var object = JSONObject([("path", .string(item.path)), ("status", .string(item.status.rawValue))])
                if item.status == .rejected { object["problem"] = .string(item.problem ?? "") }
                return .object(object)
            }
            let document = JSONValue.object(JSONObject([("account", .string(workspace.name)), ("items", .array(entries))]))
            context.standardOutput.write(document.serialized() + "\n")
            return waiting.isEmpty ? .success : .attention
        }
        guard !waiting.isEmpty else {
            if !context.globalOptions.quiet {
                context.standardOutput.write("Nothing to resolve for \(workspace.name).\n")
            }
            return .success
        }
        let width = waiting.map(\.path.count).max() ?? 0
        var text = "\(Wording.count(waiting.count, "write").capitalizedFirst) of \(workspace.name) \(waiting.count == 1 ? "waits" : "wait") for a decision:\n"
        for item in waiting {
            let what = item.status == .conflict ? "conflict" : "rejected: \(TerminalText.escaped(item.problem ?? "no reason given"))"
            text += "  \(item.path.padding(to: width))  \(what)\n"
        }
        text += "Run `lib resolve PATH` to see one, then settle it with --mine, --theirs, --merge or --edit (a conflict) or --edit or --discard (a rejected write).\n"
        context.standardOutput.write(text)
        return .attention
    }
}
