import LibAccounts
import LibBase
import LibCLI
import LibJSON
#if canImport(Glibc)
import Glibc
#endif

/// `lib rule [DIR ACCOUNT | --remove DIR]`: the account chosen by the
/// directory a command runs in (`AccountRules`), or the list of rules.
enum Rule: Verb {
    static let name = "rule"

    static let directory = ArgumentSpec("DIR", .text, .optional, "A directory: commands run in it or below it act on ACCOUNT")
    static let account = ArgumentSpec("ACCOUNT", .account, .optional, "The account, or a server's URL (the account signed in there)")
    static let remove = OptionSpec.flag("remove", "Remove the rule for DIR")

    static let command = CommandSpec(
        name: name, summary: "Choose the account by the directory you work in",
        discussion: """
            With DIR and ACCOUNT, commands run in DIR or any directory below \
            it act on ACCOUNT, in every shell, unless -A or LIB_ACCOUNT names \
            another: -A first, then LIB_ACCOUNT, then the rule of the deepest \
            directory holding the working directory, then the current account \
            (lib switch). lib status says which chose the account.

            ACCOUNT is user@host[:port], an alias, or an unambiguous prefix, \
            kept as the account's full name; or a server's URL, which means \
            the one account signed in on that server, whichever user it is. \
            A rule naming an account that is not signed in stops commands \
            under DIR (exit 4) rather than act on another account.

            Without arguments, lists the rules and marks the one in effect \
            here. The rules live in the file rules in lib's configuration \
            directory, one a line: the directory, a tab, the account.
            """,
        arguments: [directory, account], options: [remove],
        examples: [
            .init("lib rule ~/work alice@library.example.org", "Act as alice in ~/work and below."),
            .init("lib rule ~/club https://club.example.org", "Act as whoever is signed in at club.example.org in ~/club."),
            .init("lib rule", "List the rules; the one in effect here is marked."),
            .init("lib rule --remove ~/work", "Forget the rule for ~/work."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "DIR is not a directory, or the rules file cannot be written."), .init(.usage)])

    enum Options {
        case list
        case set(directory: String, account: String)
        case remove(directory: String)
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let directory = parsed.argument(directory), account = parsed.argument(account)
        if parsed.isSet(remove) {
            guard let directory, account == nil else { throw UsageError("--remove takes the DIR of the rule alone", command: name) }
            return .remove(directory: directory)
        }
        guard let directory else { return .list }
        guard let account else { throw UsageError("A rule needs the ACCOUNT that commands in \(directory) act on", command: name) }
        return .set(directory: directory, account: account)
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let config = try context.directories.config
        switch options {
        case .list:
            return try list(AccountRules.load(from: config), context)
        case .set(let directory, let selector):
            let index = try AccountIndex.load(from: config)
            let rule = AccountRules.Rule(directory: try canonical(directory), account: try ruleAccount(selector, in: index))
            // A server's URL must name one signed-in account now, as it will at each use.
            _ = try AccountSelection.account(for: rule, in: index)
            try edit(config) { $0.set(rule) }
            report([("directory", .string(rule.directory)), ("account", .string(rule.account))],
                   "Commands in \(rule.directory) act on \(rule.account).", context)
        case .remove(let directory):
            // A directory since removed is named as it was written.
            let path = (try? canonical(directory)) ?? directory
            guard try edit(config, { $0.remove(directory: path) }) else {
                throw CommandFailure("No rule for \(TerminalText.escaped(path)): `lib rule` lists them.")
            }
            report([("directory", .string(path)), ("removed", true)], "Removed the rule for \(path).", context)
        }
        return .success
    }

    /// The directory as the rules keep it: absolute, without symbolic links.
    private static func canonical(_ directory: String) throws -> String {
        guard let resolved = realpath(directory, nil) else {
            throw CommandFailure("\(TerminalText.escaped(directory)) is not a directory: \(String(cString: strerror(errno))).")
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure("\(TerminalText.escaped(directory)) is not a directory.")
        }
        guard AccountRules.isStorable(path) else {
            throw CommandFailure("\(TerminalText.escaped(path)): a rule's directory cannot hold a tab or a line break.")
        }
        return path
    }

    /// A server's URL as its origin; else the signed-in account's full name.
    private static func ruleAccount(_ selector: String, in index: AccountIndex) throws -> String {
        guard selector.contains("://") else { return try AccountSelection.resolve(selector, in: index).name }
        do {
            return try ServerOrigin(parsing: selector).description
        } catch {
            throw UsageError("'\(TerminalText.escaped(selector))' is not a server URL: \(error)", command: name)
        }
    }

    private static func edit<T>(_ config: String, _ change: (inout AccountRules) -> T) throws -> T {
        try PrivateFile.makeDirectory(config)
        return try PrivateFile.holdingLock(AccountRules.path(in: config) + ".lock") {
            var rules = try AccountRules.load(from: config)
            let result = change(&rules)
            try rules.save(to: config)
            return result
        }
    }

    private static func report(_ fields: [(String, JSONValue)], _ sentence: String, _ context: CommandContext) {
        if context.globalOptions.json {
            context.standardOutput.write(JSONValue.object(JSONObject(fields)).serialized() + "\n")
        } else if !context.globalOptions.quiet {
            context.standardOutput.write(TerminalText.escaped(sentence) + "\n")
        }
    }

    private static func list(_ rules: AccountRules, _ context: CommandContext) throws -> ExitCode {
        let here = CommandContext.workingDirectory().flatMap { rules.rule(for: $0) }
        if context.globalOptions.json {
            let items = rules.rules.map { rule in
                JSONValue.object(JSONObject([("directory", .string(rule.directory)), ("account", .string(rule.account)),
                                             ("in_effect", .bool(rule == here))]))
            }
            context.standardOutput.write(JSONValue.array(items).serialized() + "\n")
            return .success
        }
        guard !rules.rules.isEmpty else {
            context.standardError.write("No rules: `lib rule DIR ACCOUNT` makes commands in DIR act on ACCOUNT.\n")
            return .success
        }
        let width = rules.rules.map(\.directory.count).max() ?? 0
        for rule in rules.rules.sorted(by: { $0.directory < $1.directory }) {
            let mark = rule == here ? "*" : " "
            context.standardOutput.write(TerminalText.escaped("\(mark) \(rule.directory.padding(to: width))  \(rule.account)") + "\n")
        }
        return .success
    }
}
