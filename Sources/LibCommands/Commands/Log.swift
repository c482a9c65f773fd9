#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib log [PATH] [-n N] [--offline]`: what this device pushed for the
/// account, newest first, from the log the store keeps with each recorded
/// success (`PushedLog`: the newest 10,000 writes): offline, no request.
/// With a PATH it adds the book's server history (every user's changes,
/// who and when, field by field), unless `--offline`; when the server
/// cannot be reached it says that part is missing and still exits 0.
enum Log: Verb {
    static let name = "log"

    static let path = ArgumentSpec(
        "PATH", .resourcePath, .optional, "A document, such as books/b-7: its writes, and its server history")
    static let count = OptionSpec.option(
        "max-count", short: "n", value: "N", .text, "Show at most N writes (and N versions)")
    static let offline = OptionSpec.flag(
        "offline", "With PATH: leave out the server history; never touch the network")

    static let command = CommandSpec(
        name: name, summary: "Show what this device pushed, and a book's history",
        discussion: """
            Lists the writes this device pushed for the account, newest first: \
            when, the kind (create, change, delete), the path, the fields and \
            their new values, and the ETag of the version the write made. The \
            list is kept on this device with each write the server applied \
            (the newest 10,000 per account), so it works offline and sends no \
            request.

            With a PATH it lists only that document's writes, and adds the \
            book's history from the server: every user's changes, who and \
            when, field by field. When the server cannot be reached it says \
            that part is missing and shows the rest; --offline leaves it out.
            """,
        arguments: [path], options: [count, offline],
        examples: [
            .init("lib log", "Everything this device pushed for the account."),
            .init("lib log -n 5", "The five newest writes."),
            .init("lib log books/b-7", "Your writes of books/b-7 and its history on the server."),
        ],
        exitStatuses: [.init(.success, "Done, also when the server history could not be fetched (said in the output)."),
                       .init(.failure), .init(.usage)])

    struct Options {
        var path: ResourcePath?
        var limit: Int?
        var offline: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        var path: ResourcePath?
        if let text = parsed.argument(Log.path) {
            let parsedPath = try ResourcePath.argument(text)
            guard parsedPath.isDocument else {
                throw UsageError("'\(text)' is a collection; give one of its documents, such as '\(parsedPath.collection)/b-7', or no PATH",
                                 command: Log.name)
            }
            path = parsedPath
        }
        var limit: Int?
        if let text = parsed.text(Log.count) {
            guard let n = Int(text), n >= 0 else {
                throw UsageError("-n takes a number of writes (0 or more), not '\(text)'", command: Log.name)
            }
            limit = n
        }
        return Options(path: path, limit: limit, offline: parsed.isSet(Log.offline))
    }

    /// A book's server history needs the network; the device's log does not.
    static func runsOnline(_ options: Options) -> Bool { options.path != nil && !options.offline }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let key = options.path?.description
        let storePath = workspace.paths.storePath(workspace.name)
        // Read only, as status reads: a store that is not there has no log.
        let entries = access(storePath, F_OK) == 0
            ? try AccountStore(readingFrom: storePath).pushedLog.entries(path: key, limit: options.limit)
            : []
        var history: [PushedLogView.ServerChange]?
        var missing: String?
        if let path = options.path, !options.offline {
            do {
                history = Array(try serverHistory(path, workspace).prefix(options.limit ?? Int.max))
            } catch let failure as CommandFailure {
                missing = failure.message
            }
        }
        if context.globalOptions.json {
            context.standardOutput.write(json(workspace.name, key, entries, history: history, missing: missing).prettyPrinted() + "\n")
            return .success
        }
        var text = "Pushed from this device for \(workspace.name)\(key.map { " (\($0))" } ?? ""), newest first:\n"
        if entries.isEmpty { text += "  nothing yet\n" }
        for entry in entries {
            text += "  "
            text += PushedLogView.line(entry)
            text += "\n"
        }
        if let key, !options.offline {
            if let history {
                text += "\nServer history of \(key) (every user's changes), newest first:\n"
                if history.isEmpty { text += "  the server never had it\n" }
                for change in history { text += "  " + PushedLogView.line(change) + "\n" }
            } else if let missing {
                text += "\nThe server history of \(key) is missing: \(TerminalText.escaped(missing))\n"
            }
        }
        Pager(context: context).show(text, context)
        return .success
    }

    /// The book's history from the server, newest first (empty when the
    /// server never had it).
    private static func serverHistory(_ path: ResourcePath, _ workspace: AccountWorkspace) throws -> [PushedLogView.ServerChange] {
        var api = workspace.api(token: try workspace.token(), timeout: Get.budgetWithCopy)
        api.deadline = MonotonicClock.now() + Get.budgetWithCopy
        do {
            return PushedLogView.serverChanges(try ResourceFetcher(api: api).history(path) ?? [])
        } catch {
            throw workspace.explained(error)
        }
    }

    /// `lib log --json` (docs/json/log.schema.json).
    static func json(_ account: String, _ path: String?, _ entries: [PushedWrite], history: [PushedLogView.ServerChange]?,
                     missing: String?) -> JSONValue {
        .object(JSONObject([
            ("account", .string(account)), ("path", path.map { .string($0) } ?? .null),
            ("pushed", .array(entries.map(PushedLogView.json))),
            ("server_history", history.map { .array($0.map(PushedLogView.json)) } ?? .null),
            ("server_history_missing", missing.map { .string($0) } ?? .null),
        ]))
    }
}
