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

    static let command = CommandSpec(
        name: name, summary: "Choose the current account, or list accounts",
        discussion: """
            With ACCOUNT, makes it the current account: the one commands act on \
            when neither -A nor LIB_ACCOUNT names another. ACCOUNT is \
            user@host[:port] or any unambiguous prefix of it, such as alice.

            Without ACCOUNT, lists the signed-in accounts and marks the current one.
            """,
        arguments: [account],
        examples: [
            .init("lib switch", "List accounts; the current one is marked."),
            .init("lib switch bob@library.example.org", "Act as bob from now on."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "No such account, or more than one matches."), .init(.usage)])

    struct Options {
        /// nil: list the accounts.
        var account: String?
    }

    static func options(_ parsed: ParsedCommand) throws -> Options { Options(account: parsed.argument(account)) }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        var index = try AccountIndex.load(from: directories.config)
        guard let selector = options.account else {
            return try list(index, paths: AccountPaths(directories: directories), context)
        }
        let account = try AccountSelection.resolve(selector, in: index)
        index.currentName = account.name
        try index.save(to: directories.config)
        if context.globalOptions.json {
            context.standardOutput.write(JSONValue.object(JSONObject([("account", .string(account.name)), ("current", true)]))
                .prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            context.standardOutput.write("Switched to \(account.name)\n")
        }
        return .success
    }

    private static func list(_ index: AccountIndex, paths: AccountPaths, _ context: CommandContext) throws -> ExitCode {
        if index.accounts.isEmpty {
            if context.globalOptions.json { context.standardOutput.write("[]\n") }
            else { context.standardError.write("No accounts: sign in with `lib login SERVER_URL`.\n") }
            return .success
        }
        let width = index.accounts.map(\.name.count).max() ?? 0
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
                    ("account", .string(account.name)), ("current", .bool(current)),
                    ("pending", .integer(Int64(counts.pending))), ("conflicts", .integer(Int64(counts.conflicts))),
                    ("rejected", .integer(Int64(counts.rejected))),
                ])))
            } else {
                let padded = account.name + String(repeating: " ", count: width - account.name.count)
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
