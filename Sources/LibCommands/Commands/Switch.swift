import LibAccounts
import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient
#if canImport(Glibc)
import Glibc
#endif

/// `lib switch [ACCOUNT]`: sets the current account, or lists them.
enum Switch: Verb {
    static let name = "switch"

    static let account = ArgumentSpec("ACCOUNT", .account, .optional, "The account to make current")
    static let alias = OptionSpec.option(
        "alias", value: "NAME", .text, "Give ACCOUNT a short name for the prompt and -A",
        details: "\(AccountAlias.rule.prefix(1).uppercased() + AccountAlias.rule.dropFirst()). An empty NAME (--alias=) removes it.")

    static let command = CommandSpec(
        name: name, summary: "Choose the current account, or list accounts",
        discussion: """
            With ACCOUNT, makes it the current account: the one commands act on \
            when neither -A nor LIB_ACCOUNT names another. ACCOUNT is \
            user@host[:port] or any unambiguous prefix of it, such as alice.

            With --alias NAME, ACCOUNT also gets a short name: the prompt \
            segment shows NAME instead of the account's name, and -A NAME and \
            LIB_ACCOUNT=NAME select it. lib login --alias NAME sets it at sign-in.

            Without ACCOUNT, lists the signed-in accounts and marks the current one.
            """,
        arguments: [account], options: [alias],
        examples: [
            .init("lib switch", "List accounts; the current one is marked."),
            .init("lib switch bob@library.example.org", "Act as bob from now on."),
            .init("lib switch alice@127.0.0.1:19501 --alias test", "Act as alice on the test server; the prompt says test."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "No such account, or more than one matches."), .init(.usage)])

    struct Options {
        /// nil: list the accounts.
        var account: String?
        /// nil: leave it; "": remove it.
        var alias: String?
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let options = Options(account: parsed.argument(account), alias: parsed.text(alias))
        if let alias = options.alias {
            guard options.account != nil else { throw UsageError("--alias needs the ACCOUNT it names", command: name) }
            try checkAlias(alias, command: name)
        }
        return options
    }

    /// An alias follows its rule (or is empty: none).
    static func checkAlias(_ alias: String, command: String) throws {
        guard alias.isEmpty || AccountAlias.isValid(alias) else {
            throw UsageError("The alias '\(TerminalText.escaped(alias))' is not \(AccountAlias.rule).", command: command)
        }
    }

    /// Refuses an alias that another account has, or that is another account's name.
    static func checkAliasIsFree(_ alias: String, for account: String, in index: AccountIndex) throws {
        if let other = index.accounts.first(where: { $0.name != account && ($0.alias == alias || $0.name == alias) }) {
            throw CommandFailure("The alias '\(alias)' already names \(other.name): choose another, or remove it with `lib switch \(other.name) --alias=`.")
        }
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        guard let selector = options.account else {
            return try list(try AccountIndex.load(from: directories.config), paths: AccountPaths(directories: directories), context)
        }
        // Only the default changes (a new `current` file renamed over the
        // old one): a command already running keeps the account it chose.
        let (index, account) = try AccountIndex.update(in: directories.config) { index in
            let account = try AccountSelection.resolve(selector, in: index)
            index.currentName = account.name
            if let alias = options.alias {
                try checkAliasIsFree(alias, for: account.name, in: index)
                index.setAlias(alias.isEmpty ? nil : alias, of: account.name)
            }
            return (index, account)
        }
        if options.alias != nil, let renamed = index.account(named: account.name) {
            // The prompt file shows the new short name from the next prompt on.
            let paths = AccountPaths(directories: directories)
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: renamed)
            PromptFile(workspace).rewrite(OutboxSummary.readIfPresent(storePath: paths.storePath(account.name)) ?? OutboxSummary())
        }
        if context.globalOptions.json {
            context.standardOutput.write(JSONValue.object(JSONObject([("account", .string(account.name)), ("current", true)]))
                .prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            let alias = index.account(named: account.name)?.alias
            context.standardOutput.write("Switched to \(account.name)\(alias.map { " (alias \($0))" } ?? "").\n")
        }
        return .success
    }

    private static func list(_ index: AccountIndex, paths: AccountPaths, _ context: CommandContext) throws -> ExitCode {
        if index.accounts.isEmpty {
            if context.globalOptions.json { context.standardOutput.write("[]\n") }
            else { context.standardError.write("No accounts: sign in with `lib login SERVER_URL`.\n") }
            return .success
        }
        func shown(_ account: Account) -> String { account.name + (account.alias.map { " (\($0))" } ?? "") }
        let width = index.accounts.map { shown($0).count }.max() ?? 0
        var json: [JSONValue] = []
        var damaged: [String] = []
        for account in index.accounts {
            let storePath = paths.storePath(account.name)
            // A store that exists and cannot be read is never listed as up to date.
            guard let counts = OutboxSummary.readIfPresent(storePath: storePath) ?? (access(storePath, F_OK) == 0 ? nil : OutboxSummary())
            else {
                damaged.append(account.name)
                continue
            }
            let current = account.name == index.currentName
            if context.globalOptions.json {
                json.append(.object(JSONObject([
                    ("account", .string(account.name)), ("alias", account.alias.map(JSONValue.string) ?? .null),
                    ("current", .bool(current)),
                    ("pending", .integer(Int64(counts.pending))), ("conflicts", .integer(Int64(counts.conflicts))),
                    ("rejected", .integer(Int64(counts.rejected))),
                ])))
            } else {
                let padded = shown(account) + String(repeating: " ", count: width - shown(account).count)
                context.standardOutput.write("\(current ? "*" : " ") \(padded)  \(counts.phrase)\n")
            }
        }
        if context.globalOptions.json { context.standardOutput.write(JSONValue.array(json).serialized() + "\n") }
        for name in damaged {
            context.standardError.write("\(ProgramInfo.name): The store of \(name) cannot be read: `lib status -A \(name)` says why and how to keep its writes.\n")
        }
        return damaged.isEmpty ? .success : .failure
    }
}
