import LibAccounts
import LibCLI
import LibBase
import LibClient

/// `lib push [--wait DURATION | --watch | --dry-run] [--all]`: sends the outbox of the account (or
/// of every signed-in account, one after the other, each with its own token
/// and connection).
///
/// Output: the summary on standard output ("Pushed 3 writes to HOST as
/// ACCOUNT. 1 conflict: books/b-7 — run `lib resolve books/b-7`."), the
/// reason a push stopped on standard error, with `--wait` as without it.
/// `-q` (the cron form) drops the lines that only say all went well.
///
/// With `--all` the exit code is the worst of the accounts', worst first:
/// 1 (an unexpected failure), 4 (sign in again: nothing of that account can
/// be sent), 5 (the mass-change guard refused the writes), 3 (conflicts or
/// rejected writes wait for a decision), 75 (try later: it heals by
/// itself), 0. The codes that need a person come before
/// the one that does not.
enum Push: Verb {
    static let name = "push"

    static let wait = OptionSpec.option(
        "wait", value: "DURATION", .duration,
        "Keep trying for up to DURATION in all (for cron)",
        details: """
            DURATION is seconds (90, 1.5) or has a unit (90s, 2m, 1h). \
            Waits for a network path when offline and retries with backoff when \
            the server is unreachable; exits 75 with the writes kept when the \
            time runs out. Prints what push prints; with -q (as from cron) \
            only what needs a person.
            """)
    static let watch = OptionSpec.flag(
        "watch", "Run until stopped, pushing each write soon after it is saved (for a service)",
        details: """
            Pushes about a second after each saved write (bursts of edits go \
            together), as soon as a network route appears, and after a backoff \
            while the server is unreachable. One line per push on standard \
            error, each problem once. SIGTERM or SIGINT lets the request on the \
            wire finish and exits 0. With LIB_METERED=defer it holds writes \
            while NetworkManager says the connection is metered. It also keeps \
            the offline library fresh (as lib pull): at start, after each push, \
            after the server comes back, and, while idle, as soon as something \
            changes on the server (one waiting change-feed request per account, \
            to a server that holds them) or else every LIB_WATCH_PULL_INTERVAL \
            seconds (default 900; 0: neither), except while metered with \
            LIB_METERED=defer. See the user unit lib-push.service in /usr/lib/systemd/user.
            """)
    static let all = OptionSpec.flag("all", "Push every signed-in account, each with its own token")
    static let strict = OptionSpec.flag(
        "strict", "Any change of a book since the version a write saw is a conflict (the whole-version rule)",
        details: """
            Without it, a change of fields nobody else changed is merged with \
            the newer version on the server. LIB_STRICT_WRITES=1 in the \
            environment makes every push strict (as from cron or a service).
            """)
    static let force = OptionSpec.flag(
        "force", "Push even writes that delete or blank many books (the mass-change guard)",
        details: """
            Without it, a push whose writes would delete books, or blank a \
            field that had a value (remove it, or set it to null, "" or []), \
            of more than 20 books and more than 20% of the offline library's \
            books is refused before anything is sent (exit 5); the server \
            holds each request to its own guard too. --force skips this \
            device's guard and tells the server the writes are meant. \
            LIB_GUARD=BOOKS,PERCENT sets the guard (default 20,20); \
            LIB_GUARD=off turns this device's guard off.
            """)
    static let dryRun = OptionSpec.flag(
        "dry-run", short: "n", "Print what would be sent, in order; send and change nothing",
        details: """
            Per account, each write in the order a push takes it: its path, \
            kind, fields and precondition, and which writes wait behind a \
            conflict or need lib resolve; when writes delete books or blank \
            fields, how many books and whether the mass-change guard would \
            refuse them. Reads this device only: works \
            offline, needs no keyring.
            """)

    static let command = CommandSpec(
        name: name, summary: "Send pending writes to the server, in order",
        discussion: """
            Sends the writes waiting in the outbox, oldest first, each exactly \
            once. A write is what you changed (the fields set and removed, or a \
            create or a delete), sent against the version you saw; every field \
            you did not touch is the server's. A write whose resource changed \
            on the server meanwhile becomes a conflict (see lib resolve) and \
            later writes of that resource wait behind it; writes of other \
            resources go on. A later write of a resource goes against the \
            version the one before it left, unless a field it sets was changed \
            there by someone else: then it is a conflict too, never an overwrite.

            One push per account runs at a time: an overlapping push waits \
            within its own time and then sends what is left.

            To a server that speaks protocol v2 the writes go many in one \
            request (up to 1,000), and a change of fields nobody else changed \
            is merged on the server with the newer version ("merged with bob's \
            change to copies"); a clash on a field you changed is still a \
            conflict. --strict (or LIB_STRICT_WRITES=1) asks for the \
            whole-version rule instead: any change since is a conflict. To a \
            server that speaks only protocol v1 (or with LIB_PROTOCOL=v1) the \
            writes go one by one, under the whole-version rule.
            """,
        options: [wait, watch, all, strict, force, dryRun],
        exclusiveGroups: [[wait.name, watch.name]],
        examples: [
            .init("lib push", "Send what is pending, now."),
            .init("lib -q push --wait 60", "From cron: keep trying for up to a minute; quiet unless a person is needed."),
            .init("lib push --all", "Send every signed-in account's writes."),
            .init("lib push -n --all", "What a push of every account would send, sending nothing."),
            .init("lib push --watch --all", "Keep every account's writes flowing until stopped."),
        ],
        exitStatuses: .usual(success: "Everything was sent.", also: [
            .init(.attention, "Conflicts or rejected writes remain: see lib resolve."),
            .init(.authentication, "The server needs you to sign in again."),
            .init(.refused, "The writes would delete or blank too many books; nothing was sent (lib push --force if you mean it)."),
            .init(.temporaryFailure, "Offline or the server is unreachable; the writes are kept."),
        ]))

    struct Options {
        /// Seconds to keep trying (`--wait`).
        var wait: Double?
        var watch: Bool
        var all: Bool
        /// `--dry-run`: say what would be sent, send nothing.
        var dryRun = false
        /// `--strict`: updates under the whole-version rule.
        var strict = false
        /// `--force`: past the mass-change guard.
        var force = false
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let options = Options(wait: parsed.seconds(wait), watch: parsed.isSet(watch), all: parsed.isSet(all),
                              dryRun: parsed.isSet(dryRun), strict: parsed.isSet(strict), force: parsed.isSet(force))
        if options.dryRun && (options.wait != nil || options.watch) {
            throw UsageError("--dry-run sends nothing, so it takes neither --wait nor --watch", command: name)
        }
        return options
    }

    /// A dry run reads the outbox alone.
    static func runsOnline(_ options: Options) -> Bool { !options.dryRun }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let massChangeGuard = options.force ? nil : try MassChangeWords.configured(context)
        if options.dryRun { return try PushDryRun.run(all: options.all, guard: massChangeGuard, context) }
        if options.watch {
            // --wait and --watch are an exclusive group: the parser refused both.
            let watch = try PushWatch(context, all: options.all, strict: options.strict)
            watch.massChangeGuard = massChangeGuard
            watch.force = options.force
            return try watch.run()
        }
        let deadline = options.wait.map { MonotonicClock.now() + $0 }
        let workspaces = try AccountWorkspace.chosen(all: options.all, context)
        var worst = ExitCode.success
        var results: [(account: String, result: AccountPush.Result)] = []
        for workspace in workspaces {
            var push = AccountPush(workspace: workspace, deadline: deadline, lockWait: AccountPush.defaultLockWait,
                                   progress: WaitProgress(context))
            push.strict = options.strict
            push.massChangeGuard = massChangeGuard
            push.force = options.force
            let result = push.run()
            if context.globalOptions.json {
                results.append((workspace.name, result))
            } else {
                report(result, context, workspace: workspace, naming: workspaces.count > 1)
            }
            worst = worse(worst, result.exitCode)
            // Nothing sent, for lack of writes or with only this account's own
            // conflicts left: what waits in the other accounts is said either way.
            if !options.all && result.answered == 0 && [.success, .attention].contains(result.exitCode) && !context.globalOptions.quiet
                && !context.globalOptions.json {
                let elsewhere = WaitingElsewhere(context: context, paths: workspace.paths, index: workspace.index)
                let others = elsewhere.otherAccounts(besides: [workspace.account], verb: "push") + elsewhere.setAsideWithoutAccount()
                for line in others { context.standardOutput.write(line + "\n") }
            }
        }
        if context.globalOptions.json {
            context.standardOutput.write(PushJSON.document(results, exitCode: worst).prettyPrinted() + "\n")
            if worst != .success {
                let problems = results.compactMap { $0.result.problem?.text ?? $0.result.attention }
                throw CommandFailure(problems.joined(separator: "\n"), exitCode: worst)
            }
        }
        return worst
    }

    /// Prints what one account's push has to say: the summary on standard
    /// output, the problem and the conflicts on standard error. Under `-q`
    /// nothing for success or a temporary failure (75), unless the oldest
    /// pending write has waited past `QuietRule`'s threshold.
    /// `naming`: several accounts are pushed, so each problem line starts
    /// with its account's name (unless it starts with it already).
    static func report(_ result: AccountPush.Result, _ context: CommandContext, workspace: AccountWorkspace? = nil,
                       naming: Bool = false) {
        let named = { (line: String, namesAccount: Bool) -> String in
            guard naming, !namesAccount, let name = workspace?.name else { return line }
            return "\(name): \(line)"
        }
        var silent = false
        if context.globalOptions.quiet {
            silent = QuietRule(environment: context.environment).silences(
                result.exitCode, oldestPendingAge: workspace.flatMap { oldestPendingAge($0) })
        }
        if silent && result.attention == nil { return }
        let prefix = "\(ProgramInfo.name):"
        let painter = context.errorPainter
        // Wrapped before it is painted: the width counts what is seen.
        let line = { (text: String, namesAccount: Bool, style: TextStyle?) -> String in
            let fitted = context.standardError.fitted("\(prefix) " + TerminalText.escaped(named(text, namesAccount), keepingLayout: true))
            let rest = String(fitted.dropFirst(prefix.count))
            return painter.paint(prefix, .red) + (style.map { painter.paint(rest, $0) } ?? rest) + "\n"
        }
        if let summary = result.summary, !context.globalOptions.quiet {
            context.standardOutput.write(TerminalText.escaped(summary, keepingLayout: true) + "\n")
            context.standardOutput.flush()
        }
        if let attention = result.attention { context.standardError.write(line(attention, false, .yellow)) }
        if let problem = result.problem, !silent { context.standardError.write(line(problem.text, problem.namesAccount, nil)) }
    }

    /// Seconds since the oldest write still pending was saved; nil when none is.
    static func oldestPendingAge(_ workspace: AccountWorkspace) -> Double? {
        guard let store = try? workspace.openStore(),
              let oldest = try? store.outbox.all().filter({ $0.status == .pending }).map(\.createdAt).min()
        else { return nil }
        return workspace.context.now().secondsSince1970 - Double(oldest)
    }

    /// The exit code that says more, in the order documented above.
    static func worse(_ a: ExitCode, _ b: ExitCode) -> ExitCode {
        rank(a) >= rank(b) ? a : b
    }

    private static func rank(_ code: ExitCode) -> Int {
        switch code {
        case .success: 0
        case .temporaryFailure: 1
        case .attention: 2
        case .refused: 3
        case .authentication: 4
        case .usage, .failure: 5
        }
    }
}
