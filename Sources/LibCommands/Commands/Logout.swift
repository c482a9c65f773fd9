import LibAccounts
import LibCLI
import LibJSON
import LibSync

/// `lib logout [ACCOUNT] [--discard] [--yes]`
///
/// Ordered so that a failure part-way leaves nothing half-done: everything
/// that can refuse comes before the first change; the outbox is set aside
/// (reversibly) before the token is revoked and forgotten.
enum Logout: Verb {
    static let name = "logout"

    static let account = ArgumentSpec(
        "ACCOUNT", .account, .optional, "The account to sign out of (default: the current one)")
    static let discard = OptionSpec.flag("discard", "Delete unsent writes instead of setting them aside")
    static let yes = OptionSpec.flag("yes", "Do not ask before discarding unsent writes")

    static let command = CommandSpec(
        name: name, summary: "Sign out; set unsent writes aside",
        discussion: """
            Revokes the token on the server (best effort), removes it from the \
            keyring and from the kernel keyring's cache (and the persistent \
            keyring, after login --headless), and deletes the account's offline \
            library (lib pull brings it back). The account's alias is kept, and \
            comes back when the same user signs in to the same server again.

            Writes not sent yet are set aside, and restored only when the same \
            user signs in to the same server again; they are never sent under \
            another account. --discard deletes them instead, after asking on a \
            terminal unless --yes is given.
            """,
        arguments: [account], options: [discard, yes],
        examples: [
            .init("lib logout", "Sign out of the current account."),
            .init("lib logout bob --discard --yes", "Sign out of bob's account and drop its unsent writes."),
        ],
        exitStatuses: .usual(success: "Signed out.", also: [
            .init(.authentication, "The keyring is absent, locked or refused."),
        ]))

    /// How long logout waits for a running push to finish the request it has on the wire.
    static let pushWait = 40.0

    struct Options {
        /// nil: the current account.
        var account: String?
        var discard: Bool
        var yes: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        Options(account: parsed.argument(account), discard: parsed.isSet(discard), yes: parsed.isSet(yes))
    }

    static func runsOnline(_ options: Options) -> Bool { true }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context, selector: options.account)
        let discard = options.discard
        let name = workspace.name
        let paths = workspace.paths

        let store = try workspace.openStore()
        let counts = try store.outbox.counts()
        let unsent = counts.pending + counts.conflicts + counts.rejected
        if discard && unsent > 0 && !options.yes {
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
            moved = try workspace.setAside.setAside(from: store, identityKey: workspace.identityKey, now: context.now().secondsSince1970)
        }

        var revoked = false
        if let token {
            revoked = SessionClient(api: workspace.api(token: token, timeout: 5)).signOut()
        }
        var keyringProblem: (any Error)?
        do {
            try context.tokenStore.deleteToken(for: workspace.keyringAccount)
        } catch .notFound {
        } catch {
            keyringProblem = error
        }

        let offlineBooks = (try? store.cache.count(under: "books/")) ?? 0
        paths.removeAccountFiles(name)
        let configDirectory = try context.directories.config
        let index = try AccountIndex.update(in: configDirectory) { index in
            if workspace.account.alias != nil {
                var kept = try KeptAliases.load(from: configDirectory)
                kept.keep(workspace.account)
                try kept.save(to: configDirectory)
            }
            index.remove(named: name)
            return index
        }
        PromptFile.forgetNamesakes(of: workspace.account, in: index, paths: paths)
        _ = lock

        if context.globalOptions.json {
            let document: JSONValue = [
                "account": .string(name), "revoked": .bool(revoked),
                "set_aside": .integer(Int64(discard ? 0 : moved)), "discarded": .integer(Int64(discard ? moved : 0)),
                "current": index.currentName.map(JSONValue.string) ?? .null,
                "alias_kept": workspace.account.alias.map(JSONValue.string) ?? .null,
                "offline_books_deleted": .integer(Int64(offlineBooks)),
            ]
            context.standardOutput.write(document.prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            var lines = ["Signed out of \(name)."]
            if moved > 0 {
                lines.append(discard
                    ? "Discarded \(Wording.writes(moved)) that had not been sent."
                    : "Set aside \(Wording.writes(moved)) not sent yet; \(moved == 1 ? "it comes" : "they come") back when you sign in again as \(name).")
            }
            if offlineBooks > 0 {
                lines.append("Deleted its offline library (\(Wording.count(offlineBooks, "book"))); `lib pull` brings it back after you sign in again.")
            }
            if let alias = workspace.account.alias {
                lines.append("Kept the alias '\(alias)': it comes back when you sign in again as \(name).")
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
    /// The account's token from the store of record (not a cache: logout
    /// must be able to remove it there), or nil when the keyring no longer
    /// has one; any other keyring problem is thrown, after the cached copies
    /// are forgotten (a cache is never worth keeping when in doubt).
    static func existingToken(_ workspace: AccountWorkspace) throws -> String? {
        let store = workspace.context.tokenStore
        do {
            return try store.storedToken(for: workspace.keyringAccount)
        } catch {
            store.forgetCachedCopies(for: workspace.keyringAccount)
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
