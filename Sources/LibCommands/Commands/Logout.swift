import LibAccounts
import LibCLI
import LibJSON
import LibSync

/// `lib logout [ACCOUNT] [--discard] [--yes]`
///
/// Ordered so that a failure part-way leaves nothing half-done: everything
/// that can refuse comes before the first change; the outbox is set aside
/// (reversibly) before the token is revoked and forgotten.
enum Logout {
    /// How long logout waits for a running push to finish the request it has on the wire.
    static let pushWait = 40.0

    static func run(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context, selector: parsed.argument(LogoutSyntax.account))
        let discard = parsed.isSet(LogoutSyntax.discard)
        let name = workspace.name
        let paths = workspace.paths

        let store = try workspace.openStore()
        let counts = try store.outbox.counts()
        let unsent = counts.pending + counts.conflicts + counts.rejected
        if discard && unsent > 0 && !parsed.isSet(LogoutSyntax.yes) {
            guard context.standardInput.isTerminal else {
                throw UsageError("--discard would delete \(Wording.writes(unsent)) not sent yet: add --yes to confirm", command: "logout")
            }
            guard TerminalPrompt.confirm("Delete \(Wording.writes(unsent)) not sent yet for \(name)?", defaultYes: false) else {
                context.standardError.write("Nothing changed.\n")
                return .failure
            }
        }
        // Read before anything changes: a keyring that is absent or locked
        // stops logout here, with the account as it was. A token already
        // gone from the keyring only means there is nothing to revoke.
        let token = try existingToken(workspace)

        // From here on a push of this account sends nothing more; wait for
        // the one request it may have on the wire.
        try store.advanceGeneration()
        let lock = try PushLock.acquire(path: paths.pushLockPath(name), timeout: pushWait)
        if lock == nil {
            context.standardError.write("A push of \(name) is still running; it will send nothing more.\n")
        }

        let moved: Int
        if discard {
            moved = try store.outbox.discardAll()
        } else {
            moved = try workspace.setAside.setAside(from: store, identityKey: workspace.identityKey)
        }

        var revoked = false
        if let token {
            let api = workspace.api(token: token, timeout: 5)
            if let answer = try? api.send("DELETE", "/v1/sessions/current") {
                revoked = answer.status == 204 || answer.status == 401
            }
        }
        var keyringProblem: (any Error)?
        do {
            try context.tokenStore.deleteToken(for: workspace.keyringAccount)
        } catch .notFound {
        } catch {
            keyringProblem = error
        }

        paths.removeAccountFiles(name)
        var index = workspace.index
        index.remove(named: name)
        try index.save(to: try context.directories.config)
        PromptFile.forgetNamesakes(of: workspace.account, in: index, paths: paths)
        _ = lock

        if context.globalOptions.json {
            let document: JSONValue = [
                "account": .string(name), "revoked": .bool(revoked),
                "set_aside": .integer(Int64(discard ? 0 : moved)), "discarded": .integer(Int64(discard ? moved : 0)),
                "current": index.currentName.map(JSONValue.string) ?? .null,
            ]
            context.standardOutput.write(document.prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            var lines = ["Signed out of \(name)."]
            if moved > 0 {
                lines.append(discard
                    ? "Discarded \(Wording.writes(moved)) that had not been sent."
                    : "Set aside \(Wording.writes(moved)) not sent yet; they come back when you sign in again as \(name).")
            }
            if let current = index.currentName { lines.append("Current account: \(current).") }
            context.standardOutput.write(lines.joined(separator: "\n") + "\n")
        }
        if !revoked && !context.globalOptions.json {
            context.standardError.write("\(ProgramInfo.name): Couldn't reach \(workspace.account.origin.hostAndPort) to revoke the token of \(name): it is forgotten here but still valid there until it expires.\n")
        }
        if let keyringProblem { throw keyringProblem }
        return .success
    }
}

extension Logout {
    /// The account's token, or nil when the keyring no longer has one; any
    /// other keyring problem is thrown.
    static func existingToken(_ workspace: AccountWorkspace) throws -> String? {
        do {
            return try workspace.context.tokenStore.token(for: workspace.keyringAccount)
        } catch {
            if error == .notFound { return nil }
            throw error
        }
    }
}

#if canImport(Glibc)
import Glibc
import LibBase
import LibClient
#endif
