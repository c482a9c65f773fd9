import LibAccounts
import LibCLI
import LibSync

/// `lib status [--short | --porcelain] [--all]`: what waits to be sent, from
/// local files only — no network, no D-Bus, no keyring — so that it can run
/// in a shell prompt.
enum Status {
    struct Line {
        let account: String
        let current: Bool
        let summary: OutboxSummary
        let setAside: Int
    }

    static func run(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        let paths = AccountPaths(directories: directories)
        let index = try AccountIndex.load(from: directories.config)
        let accounts: [Account]
        if parsed.isSet(StatusSyntax.all) {
            accounts = index.accounts
        } else {
            let selector = context.accountSelector
            if selector == nil && index.accounts.isEmpty {
                return notSignedIn(parsed, context)
            }
            accounts = [try AccountSelection.resolve(selector, in: index)]
        }
        for account in accounts {
            AccountWorkspace(context, paths: paths, index: index, account: account).writePromptFileIfMissing()
        }
        let setAside = SetAsideOutboxes(directory: paths.setAsideDirectory)
        let lines = accounts.map { account in
            Line(account: account.name, current: account.name == index.currentName,
                 summary: OutboxSummary.read(storePath: paths.storePath(account.name)),
                 setAside: setAside.count(for: SetAsideOutboxes.identityKey(origin: account.origin.description, userID: account.userID)))
        }
        if context.globalOptions.json {
            context.standardOutput.write("[" + lines.map(json).joined(separator: ",") + "]\n")
        } else if parsed.isSet(StatusSyntax.porcelain) {
            for line in lines { context.standardOutput.write(porcelain(line)) }
        } else if parsed.isSet(StatusSyntax.short) {
            for line in lines { context.standardOutput.write(short(line) + "\n") }
        } else {
            context.standardOutput.write(lines.map(long).joined(separator: "\n"))
        }
        return .success
    }

    private static func notSignedIn(_ parsed: ParsedCommand, _ context: CommandContext) -> ExitCode {
        if context.globalOptions.json { context.standardOutput.write("[]\n") }
        else if !parsed.isSet(StatusSyntax.short) && !parsed.isSet(StatusSyntax.porcelain) {
            context.standardOutput.write("Not signed in. Run `lib login SERVER_URL`.\n")
        }
        return .success
    }

    /// `alice@host:8080 3 pending, 1 conflict` — one line, for prompts.
    static func short(_ line: Line) -> String {
        var text = "\(line.account) \(line.summary.phrase)"
        if line.setAside > 0 { text += ", \(line.setAside) set aside" }
        return text
    }

    /// Stable `key value` lines for scripts; a blank line after each account.
    static func porcelain(_ line: Line) -> String {
        [
            "account \(line.account)", "current \(line.current)", "pending \(line.summary.pending)",
            "conflicts \(line.summary.conflicts)", "rejected \(line.summary.rejected)", "set-aside \(line.setAside)",
        ].joined(separator: "\n") + "\n\n"
    }

    static func long(_ line: Line) -> String {
        var text = "On \(line.account)\(line.current ? "" : " (not the current account)")\n"
        let s = line.summary
        if s.isEmpty { text += "Nothing waiting to be sent.\n" }
        if s.pending > 0 {
            text += "\(Wording.writes(s.pending).capitalizedFirst) pending: run `lib push` to send \(s.pending == 1 ? "it" : "them").\n"
        }
        if s.conflicts > 0 { text += "\(Wording.count(s.conflicts, "conflict").capitalizedFirst) to settle: run `lib resolve`.\n" }
        if s.rejected > 0 { text += "\(Wording.count(s.rejected, "write").capitalizedFirst) rejected by the server: run `lib resolve`.\n" }
        if line.setAside > 0 {
            text += "\(Wording.writes(line.setAside).capitalizedFirst) set aside at logout (restored at your next `lib login`).\n"
        }
        return text
    }

    static func json(_ line: Line) -> String {
        let s = line.summary
        return #"{"account":"\#(line.account)","current":\#(line.current),"pending":\#(s.pending),"conflicts":\#(s.conflicts),"rejected":\#(s.rejected),"set_aside":\#(line.setAside)}"#
    }
}
