import LibAccounts
import LibCLI
import LibJSON
import LibBase

/// `lib status --prompt`: the prompt segment of the account in effect
/// (`LIB_ACCOUNT` or `-A`, else the current one), `alice ↑2 ≠1`, or nothing
/// at all when nothing waits (with `--all`, every account's, space
/// separated); the ASCII form (`alice +2 =1`) when the locale is not UTF-8.
/// Other accounts with writes waiting follow, compactly (`PromptSegment.combined`):
/// `alice ↑2 · ↑1` (what waits in the others, added up).
/// Reads the account's prompt file, which is always right (`PromptFile`);
/// when it is missing, the store, and writes the file again. The snippets in
/// `contrib/prompt` read the same file without starting this.
enum StatusPrompt {
    static func run(all: Bool, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        let paths = AccountPaths(directories: directories)
        let index = try AccountIndex.load(from: directories.config)
        guard let accounts = try Status.selectedAccounts(all: all, index, context) else {
            if context.globalOptions.json { context.standardOutput.write("{\"prompt\":\"\"}\n") }
            return .success
        }
        let unicode = PromptSegment.localeIsUTF8(context.environment)
        func segment(_ account: Account) -> String {
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
            return PromptFile(workspace).text(unicode: unicode, storePath: paths.storePath(account.name))
        }
        let line: String
        if all {
            line = accounts.map { segment($0.account) }.filter { !$0.isEmpty }.joined(separator: " ")
        } else {
            // The account in effect, then the other accounts that have
            // writes waiting, each from its own prompt file, in the order of
            // their directories' names (as the snippets' globs see them).
            let others = index.accounts.filter { $0.name != accounts[0].account.name }.sorted { $0.name < $1.name }
            let own = accounts[0].account
            line = PromptSegment.combined(segment(own), name: PromptSegment.shortName(of: own, among: index.accounts),
                                          others: others.map(segment).filter { !$0.isEmpty }, unicode: unicode)
        }
        if context.globalOptions.json {
            let document = JSONObject([("prompt", .string(line))])
            context.standardOutput.write(JSONValue.object(document).serialized() + "\n")
        } else if !line.isEmpty {
            context.standardOutput.write(line + "\n")
        }
        return .success
    }
}
