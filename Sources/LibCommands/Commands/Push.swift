import LibAccounts
import LibCLI
import LibBase
import LibClient

/// `lib push [--wait DURATION | --watch] [--all]`: sends the outbox of the account (or
/// of every signed-in account, one after the other, each with its own token
/// and connection).
///
/// Output: the summary on standard output ("Pushed 3 writes to HOST as
/// ACCOUNT. 1 conflict: books/b-7 — run `lib resolve books/b-7`."), the
/// reason a push stopped on standard error. `--wait` is the cron form: off
/// a terminal it prints nothing when all went well, one line per problem
/// otherwise. `-q` drops the lines that only say all went well.
///
/// With `--all` the exit code is the worst of the accounts', worst first:
/// 1 (an unexpected failure), 4 (sign in again: nothing of that account can
/// be sent), 3 (conflicts or rejected writes wait for a decision), 75 (try
/// later: it heals by itself), 0. The codes that need a person come before
/// the one that does not.
enum Push {
    static func run(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        if parsed.isSet(PushSyntax.dryRun) { return try PushDryRun.run(parsed, context) }
        if parsed.isSet(PushSyntax.watch) {
            // --wait and --watch are an exclusive group: the parser refused both.
            return try PushWatch(context, all: parsed.isSet(PushSyntax.all)).run()
        }
        let deadline = parsed.seconds(PushSyntax.wait).map { MonotonicClock.now() + $0 }
        let workspaces: [AccountWorkspace]
        if parsed.isSet(PushSyntax.all) {
            let directories = try context.directories
            let index = try AccountIndex.load(from: directories.config)
            guard !index.accounts.isEmpty else {
                throw CommandFailure("Not signed in: run `lib login SERVER_URL`.", exitCode: .authentication)
            }
            let paths = AccountPaths(directories: directories)
            workspaces = index.accounts.map { AccountWorkspace(context, paths: paths, index: index, account: $0) }
        } else {
            workspaces = [try AccountWorkspace(context)]
        }
        var worst = ExitCode.success
        var results: [(account: String, result: AccountPush.Result)] = []
        for workspace in workspaces {
            let push = AccountPush(workspace: workspace, deadline: deadline, lockWait: AccountPush.defaultLockWait,
                                   progress: WaitProgress(context))
            let result = push.run()
            if context.globalOptions.json {
                results.append((workspace.name, result))
            } else {
                report(result, context, quietWhenWell: deadline != nil && !context.standardOutput.isTerminal, workspace: workspace)
            }
            worst = worse(worst, result.exitCode)
        }
        if context.globalOptions.json {
            context.standardOutput.write(PushJSON.document(results, exitCode: worst).prettyPrinted() + "\n")
            if worst != .success {
                let problems = results.compactMap { $0.result.problem ?? $0.result.attention }
                throw CommandFailure(problems.joined(separator: "\n"), exitCode: worst)
            }
        }
        return worst
    }

    /// Prints what one account's push has to say: the summary on standard
    /// output, the problem and the conflicts on standard error. Under `-q`
    /// nothing for success or a temporary failure (75), unless the oldest
    /// pending write has waited past `QuietRule`'s threshold.
    static func report(_ result: AccountPush.Result, _ context: CommandContext, quietWhenWell: Bool,
                       workspace: AccountWorkspace? = nil) {
        var silent = result.isQuietSuccess && quietWhenWell
        if context.globalOptions.quiet {
            silent = QuietRule(environment: context.environment).silences(
                result.exitCode, oldestPendingAge: workspace.flatMap { oldestPendingAge($0) })
        }
        if silent && result.attention == nil { return }
        let lib = context.errorPainter.paint("\(ProgramInfo.name):", .red)
        if let summary = result.summary, !context.globalOptions.quiet {
            context.standardOutput.write(TerminalText.escaped(summary, keepingLayout: true) + "\n")
            context.standardOutput.flush()
        }
        if let attention = result.attention {
            context.standardError.write("\(lib) \(context.errorPainter.paint(TerminalText.escaped(attention, keepingLayout: true), .yellow))\n")
        }
        if let problem = result.problem, !silent {
            context.standardError.write("\(lib) \(TerminalText.escaped(problem, keepingLayout: true))\n")
        }
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
        case .authentication: 3
        case .usage, .failure: 4
        }
    }
}
