import LibAccounts
import LibBase
import LibCLI
import LibClient
import LibJSON
import LibSync

/// `lib pull [--all]`: makes the account's offline library complete and
/// current (LibraryPull): the first time by listing every page, with a
/// progress line on a terminal, later by reading the change feed only.
/// Deletions reach the device; unsent writes stay on top. Exit codes and
/// `-q` as push's: nothing printed for success or a temporary failure
/// (75) under `-q`, unless the oldest pending write has waited too long.
enum Pull: Verb {
    static let name = "pull"

    static let all = OptionSpec.flag("all", "Pull every signed-in account, each with its own token")
    static let watch = OptionSpec.flag(
        "watch", "Run until stopped, pulling as soon as something changes on the server (for a service)",
        details: """
            For a device that reads but does not write: pulls at start, then \
            keeps one waiting change-feed request per account open and pulls \
            when it answers, so a change made elsewhere is here within moments. \
            A server that does not hold such requests is pulled every \
            LIB_WATCH_PULL_INTERVAL seconds (default 900; 0: neither, only the \
            pull at start). Failed pulls are \
            retried with backoff and when a route appears; LIB_METERED=defer \
            holds them while the connection is metered. Nothing is pushed. \
            SIGTERM or SIGINT exits 0.
            """)

    static let command = CommandSpec(
        name: name,
        summary: "Bring the offline library up to date (changes only)",
        discussion: """
            Makes the whole library available on this device, for lib get \
            --offline and lib search. The first time, every book is listed \
            (with a progress line on a terminal); after that only what changed \
            since the last pull is asked for, from the server's change feed, \
            so a pull costs what changed, not the size of the library. Books \
            deleted on the server are removed here. Writes not yet pushed stay \
            on top of what is pulled, and nothing is sent.

            When the server no longer keeps the changes since the last pull \
            (it keeps deletions for 30 days by default), everything is listed \
            again. lib get books does the same as a pull before it prints.

            A pull stores each page as it comes: one stopped by Ctrl-C, the \
            network or its budget goes on from there next time. Whatever the \
            server answers, a pull reads at most 128 MB for at most 10 minutes \
            (push --watch's pulls: 32 MB, 1 minute; LIB_PULL_MAX_BYTES and \
            LIB_PULL_MAX_SECONDS change them), and stops at a cursor the \
            server gave before, at more books than a listing said it has, and \
            at a cursor longer than 4 KB: then it exits 75 saying why.

            Over months the store stays the size of the library: once the \
            change feed has carried more since the last listing than that \
            listing did (plus 1 MB, or a tenth), a pull lists the library \
            again instead, which replaces what the feed brought; a listing \
            that spans pulls reads at most eight pulls' budget.
            """,
        options: [all, watch],
        examples: [
            .init("lib pull", "Bring the library up to date."),
            .init("lib -q pull --all", "From cron: every account, silent unless something needs you."),
            .init("lib pull --watch --all", "Keep every account's offline library current until stopped."),
        ],
        exitStatuses: .usual(success: "The offline library is complete and current.", also: [
            .init(.authentication, "The server needs you to sign in again."),
            .init(.temporaryFailure, "Offline or the server is unreachable; what was pulled before is kept."),
        ]))

    struct Options {
        var all: Bool
        var watch = false
    }

    static func options(_ parsed: ParsedCommand) throws -> Options { Options(all: parsed.isSet(all), watch: parsed.isSet(watch)) }

    static func runsOnline(_ options: Options) -> Bool { true }

    /// The collection a pull keeps on the device.
    static let collection = ResourcePath(collection: "books", id: nil)

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        if options.watch { return try PushWatch(context, all: options.all, pullsOnly: true).run() }
        let workspaces = try AccountWorkspace.chosen(all: options.all, context)
        var worst = ExitCode.success
        var reports: [JSONValue] = []
        var problems: [String] = []
        for workspace in workspaces {
            let result = Result { try pull(workspace) }
            switch result {
            case .success(let outcome):
                reports.append(json(outcome, workspace))
                if !context.globalOptions.json && !context.globalOptions.quiet {
                    context.standardOutput.write(summary(outcome, workspace) + "\n")
                }
            case .failure(let error):
                let (message, code, namesAccount) = explanation(of: error, workspace)
                worst = Push.worse(worst, code)
                reports.append(.object(JSONObject([("account", .string(workspace.name)), ("problem", .string(message)),
                                                   ("exit_code", .integer(Int64(code.rawValue)))])))
                let silent = context.globalOptions.quiet && QuietRule(environment: context.environment)
                    .silences(code, oldestPendingAge: Push.oldestPendingAge(workspace))
                // Several accounts: each problem line names its account (as push's do).
                let problem = AccountProblem(message, namesAccount: namesAccount || workspaces.count == 1)
                if !silent { problems.append(problem.named(workspace.name)) }
            }
        }
        if context.globalOptions.json {
            // One document on stdout; the problems as the JSON error on stderr (docs/JSON.md).
            context.standardOutput.write(JSONValue.object(JSONObject([("accounts", .array(reports))])).prettyPrinted() + "\n")
            if worst != .success { throw CommandFailure(problems.joined(separator: "\n"), exitCode: worst) }
            return .success
        }
        for problem in problems {
            context.standardError.write(context.errorPainter.paint("\(ProgramInfo.name):", .red) + " "
                                        + TerminalText.escaped(problem, keepingLayout: true) + "\n")
        }
        if worst != .success { throw SilentFailure(worst) }
        return .success
    }

    /// One account's pull; `forWatcher`: `push --watch`'s, which logs lines
    /// instead of progress, pulls within its smaller budget and stops after
    /// a page once a write was saved meanwhile or `stopRequested` says so.
    static func pull(_ workspace: AccountWorkspace, forWatcher: Bool = false,
                     stopRequested: @escaping () -> Bool = { false }) throws -> LibraryPull<HTTPLibrarySource>.Outcome {
        let context = workspace.context
        let store = try workspace.openStore()
        let (api, heard) = try workspace.watchedAPI(token: try workspace.token(), store: store)
        defer { workspace.recordContact(heard, store: store) }
        // The server's schema checks what the pull keeps: fetched first only
        // when none is stored; a stale copy is refreshed after the pull.
        do {
            try BookSchemaRefresh.ifMissing(api, store: store, now: context.now().secondsSince1970)
        } catch {
            throw workspace.explained(error)
        }
        let progress = PullProgress(context, server: workspace.account.origin.hostAndPort, account: workspace.name, enabled: !forWatcher)
        defer { progress.clear() }
        var pull = store.pull(collection, from: HTTPLibrarySource(collection, api: api, rules: try BookRules.forAccount(store)), context)
        pull.progress = { progress.show(listed: $0, of: $1) }
        pull.budget = (forWatcher ? PullBudget.watching : PullBudget()).overridden(by: context.environment)
        if forWatcher {
            let pendingAtStart = try store.outbox.counts().pending
            pull.yields = { stopRequested() || ((try? store.outbox.counts().pending) ?? 0) > pendingAtStart }
        }
        let outcome: LibraryPull<HTTPLibrarySource>.Outcome?
        do {
            outcome = try pull.run()
        } catch {
            throw workspace.explained(error)
        }
        guard let outcome else {
            throw CommandFailure("\(collection) is not on \(workspace.account.origin.hostAndPort)")
        }
        BookSchemaRefresh.ifStale(api, store: store, now: context.now().secondsSince1970)
        return outcome
    }

    /// "Pulled books for ACCOUNT: 3 changed, 1 deleted." (the account's name holds the server)
    static func summary(_ outcome: LibraryPull<HTTPLibrarySource>.Outcome, _ workspace: AccountWorkspace) -> String {
        let what: String
        if outcome.listed {
            what = "listed \(Wording.count(outcome.updated, "book"))" + (outcome.deleted > 0 ? ", \(Wording.number(outcome.deleted)) gone" : "")
        } else if outcome.updated + outcome.deleted == 0 {
            what = "up to date"
        } else {
            what = "\(Wording.number(outcome.updated)) changed, \(Wording.number(outcome.deleted)) deleted"
        }
        let refused = outcome.refusedCursor.map {
            " The server refused the place the last pull reached (\(TerminalText.escaped(String($0.prefix(200))))), so the library was listed again."
        } ?? ""
        let outgrown = outcome.feedOutgrown && outcome.refusedCursor == nil
            ? " The change feed carried more than a listing of the whole library, so the library was listed again." : ""
        return "Pulled \(collection) for \(workspace.name): \(what).\(refused)\(outgrown)"
    }

    static func json(_ outcome: LibraryPull<HTTPLibrarySource>.Outcome, _ workspace: AccountWorkspace) -> JSONValue {
        .object(JSONObject([
            ("account", .string(workspace.name)), ("listed", .bool(outcome.listed)),
            ("updated", .integer(Int64(outcome.updated))), ("deleted", .integer(Int64(outcome.deleted))),
            ("requests", .integer(Int64(outcome.requests))),
        ]))
    }

    /// The sentence and exit code an error is reported with, and whether
    /// the sentence names the workspace's account.
    static func explanation(of error: any Error, _ workspace: AccountWorkspace) -> (String, ExitCode, namesAccount: Bool) {
        let failure = CommandFailure(reporting: error)
        return (failure.message, failure.exitCode, failure.account == workspace.name)
    }
}
