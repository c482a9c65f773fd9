import LibAccounts
import LibCLI
import LibJSON
import LibBase

/// `lib status --prompt`: the prompt segment of the account in effect
/// (`LIB_ACCOUNT` or `-A`, else the current one), `alice ↑2 ≠1`, or nothing
/// at all when nothing waits (with `--all`, every account's, space
/// separated); the ASCII form (`alice +2 =1`) when the locale is not UTF-8.
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
        let segments = accounts.map { account in
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
            return PromptFile(workspace).text(unicode: unicode, storePath: paths.storePath(account.name))
        }.filter { !$0.isEmpty }
        if context.globalOptions.json {
            let document = JSONObject([("prompt", .string(segments.joined(separator: " ")))])
            context.standardOutput.write(JSONValue.object(document).serialized() + "\n")
        } else if !segments.isEmpty {
            context.standardOutput.write(segments.joined(separator: " ") + "\n")
        }
        return .success
    }
}
