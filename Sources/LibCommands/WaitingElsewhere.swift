import LibAccounts
import LibCLI
import LibBase
import LibSync

/// What waits outside the accounts a command looked at: other signed-in
/// accounts' writes, and writes set aside at a logout whose user is not
/// signed in. `status` and a `push` with nothing to push say these, each
/// with the command that acts on it as printed.
struct WaitingElsewhere {
    let context: CommandContext
    let paths: AccountPaths
    let index: AccountIndex

    /// One line for each other account with something waiting:
    /// "bob@host also has 1 write pending: run `lib -A bob@host push`."
    func otherAccounts(besides shown: [Account], verb: String) -> [String] {
        index.accounts.filter { account in !shown.contains { $0.isSameIdentity(as: account) } }.compactMap { account in
            let summary = OutboxSummary.read(storePath: paths.storePath(account.name))
            guard !summary.isEmpty else { return nil }
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
            let command = summary.pending > 0 ? verb : "resolve"
            return "\(account.name) also has \(summary.waitingPhrase): run `\(workspace.lib) \(command)`."
        }
    }

    /// One line for each identity not signed in with writes set aside:
    /// "2 writes set aside at a logout from http://host (user id u-1): they come back at `lib login http://host` as that user."
    func setAsideWithoutAccount() -> [String] {
        let setAside = SetAsideOutboxes(directory: paths.setAsideDirectory)
        return setAside.identities().compactMap { identity in
            let signedIn = index.accounts.contains { $0.origin.description == identity.origin && $0.userID == identity.userID }
            let count = setAside.count(for: identity.key)
            guard !signedIn, count > 0 else { return nil }
            let origin = TerminalText.escaped(identity.origin)
            return "\(Wording.writes(count).capitalizedFirst) set aside at a logout from \(origin) (user id \(TerminalText.escaped(identity.userID))): "
                + "\(count == 1 ? "it comes" : "they come") back at `lib login \(origin)` as that user."
        }
    }
}

extension OutboxSummary {
    /// "1 write pending, 2 conflicts and 1 rejected write".
    var waitingPhrase: String {
        var parts: [String] = []
        if pending > 0 { parts.append(Wording.writes(pending) + " pending") }
        if conflicts > 0 { parts.append(Wording.count(conflicts, "conflict")) }
        if rejected > 0 { parts.append(Wording.count(rejected, "rejected write")) }
        return parts.joinedAsList()
    }
}
