#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibCLI
import LibKeyring
import LibNet
import LibSync
import LibBase
import LibClient

/// The account a command acts on (`-A`, else `LIB_ACCOUNT`, else the rule
/// for the working directory, else the current one) and the ways to reach
/// its files, its token and its server.
struct AccountWorkspace {
    let context: CommandContext
    let paths: AccountPaths
    let index: AccountIndex
    let account: Account
    /// The store once opened: a command (and each copy of its workspace)
    /// opens its account's store once.
    private let opened = OpenedStore()

    /// Resolves the account from the command line, the environment and the index.
    init(_ context: CommandContext, selector explicit: String? = nil) throws {
        let directories = try context.directories
        let index = try AccountIndex.load(from: directories.config)
        let account = try explicit.map { try AccountSelection.resolve($0, in: index) } ?? context.chooseAccount(in: index).account
        self.init(context, paths: AccountPaths(directories: directories), index: index, account: account)
    }

    init(_ context: CommandContext, paths: AccountPaths, index: AccountIndex, account: Account) {
        self.context = context
        self.paths = paths
        self.index = index
        self.account = account
    }

    var name: String { account.name }

    /// Every signed-in account with `--all` (none is a failure: exit 4),
    /// else the one in effect.
    static func chosen(all: Bool, _ context: CommandContext) throws -> [AccountWorkspace] {
        guard all else { return [try AccountWorkspace(context)] }
        let directories = try context.directories
        let index = try AccountIndex.load(from: directories.config)
        guard !index.accounts.isEmpty else {
            throw CommandFailure("Not signed in: run `lib login SERVER_URL`.", exitCode: .authentication)
        }
        let paths = AccountPaths(directories: directories)
        return index.accounts.map { AccountWorkspace(context, paths: paths, index: index, account: $0) }
    }

    var keyringAccount: KeyringAccount {
        account.keyringAccount
    }

    var identityKey: String {
        SetAsideOutboxes.identityKey(origin: account.origin.description, userID: account.userID)
    }

    var setAside: SetAsideOutboxes { SetAsideOutboxes(directory: paths.setAsideDirectory) }

    /// The account's store, made (directory 0700, file 0600) when missing,
    /// keeping the prompt file right through every outbox change.
    func openStore() throws -> AccountStore {
        if let store = opened.store { return store }
        try PrivateFile.makeDirectory(paths.accountDirectory(name), noLinksBelow: paths.directories.data)
        let prompt = PromptFile(self)
        let store = try AccountStore(path: paths.storePath(name), outboxObserver: prompt)
        prompt.writeIfMissing { try? OutboxSummary(store) }
        opened.store = store
        return store
    }

    /// Writes the prompt file when it is missing, from the store read
    /// under the prompt lock (for commands that open the store read-only).
    func writePromptFileIfMissing() {
        let storePath = paths.storePath(name)
        guard access(storePath, F_OK) == 0 else { return }
        PromptFile(self).writeIfMissing { OutboxSummary.readIfPresent(storePath: storePath) }
    }

    /// The token from the keyring (the kernel keyring's cache when warm);
    /// a keyring problem is reported as such (exit 4).
    func token() throws -> String {
        try foundToken().token
    }

    /// The token and where it was found.
    func foundToken() throws -> FoundToken {
        do {
            return try context.tokenStore.lookUp(for: keyringAccount)
        } catch .notFound {
            throw CommandFailure("No token for \(name) in the keyring: run `lib login \(account.origin)`", exitCode: .authentication,
                                 naming: name)
        }
    }

    /// The server's API, with `token`. A 401 to a request that carried it
    /// removes every cached copy of the token at once (`TokenRefusalWatch`).
    func api(token: String?, timeout: Double? = nil) -> ServerAPI {
        var transport = context.makeTransport(timeout: timeout)
        if token != nil {
            let store = context.tokenStore, account = keyringAccount
            transport = TokenRefusalWatch(base: transport) { store.forgetCachedCopies(for: account) }
        }
        return ServerAPI(transport: transport, origin: account.origin, token: token)
    }

    /// The user's sentence and exit code for a request that failed.
    func explain(_ failure: TransportFailure, pendingWrites: Int) -> CommandFailure {
        let explanation = context.diagnose(failure, account: name, pendingWrites: pendingWrites)
        return CommandFailure(explanation.message, exitCode: explanation.exitCode,
                              reason: explanation.reason.token)
    }

    /// The reason of a pull that stopped at its budget (`PullStopped`).
    static let pullBudgetReason = "pull-budget"

    /// `error` in the user's words when it is one of the server's or the
    /// network's (a `RequestFailure`, a `PullStopped`); any other error as it is.
    func explained(_ error: any Error, pendingWrites: Int = 0) -> any Error {
        switch error {
        case RequestFailure.transport(let failure) as RequestFailure:
            return explain(failure, pendingWrites: pendingWrites)
        case RequestFailure.problem(let problem) as RequestFailure:
            return CommandFailure("\(account.origin.hostAndPort) answered \(problem.request) with \(problem.status): \(problem.detail)")
        case let failure as TransportFailure:
            return explain(failure, pendingWrites: pendingWrites)
        case let stop as PullStopped:
            return CommandFailure("Stopped pulling from \(account.origin.hostAndPort) \(stop.why); what was pulled is kept on this device, "
                                  + "and the next lib pull goes on from there.", exitCode: .temporaryFailure, reason: Self.pullBudgetReason)
        default:
            return error
        }
    }
}

extension CommandContext {
    /// The account in effect and what chose it (`AccountSelection.choose`).
    func chooseAccount(in index: AccountIndex) throws -> AccountSelection.Choice {
        try chooseAccount(option: globalOptions.account, in: index)
    }

    /// Whether the command line or the environment names the account.
    var namesAccount: Bool {
        globalOptions.account != nil || environment["LIB_ACCOUNT"].map { !$0.isEmpty } == true
    }

    private func chooseAccount(option: String?, in index: AccountIndex) throws -> AccountSelection.Choice {
        try AccountSelection.choose(option: option, environment: environment["LIB_ACCOUNT"],
                                    rule: { try AccountRules.rule(for: $0, in: try directories.config) },
                                    workingDirectory: { Self.workingDirectory() }, in: index)
    }

    /// The account a plain `lib` typed in this shell, here, acts on: the
    /// choice without `-A`.
    func shellAccount(in index: AccountIndex) -> Account? {
        try? chooseAccount(option: nil, in: index).account
    }

    /// The process's working directory, without symbolic links (as the
    /// rules keep theirs); nil when it cannot be known (removed).
    static func workingDirectory() -> String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }
}

extension AccountWorkspace {
    /// How a hint starts: `lib`, or `lib -A NAME` when a plain `lib` typed
    /// in this shell would act on another account, so that a hint pasted as
    /// printed acts on this one.
    var lib: String {
        context.shellAccount(in: index)?.isSameIdentity(as: account) == true ? "lib" : "lib -A \(name)"
    }
}

extension Account {
    /// The account as the keyring knows it: identity, name, login stamp, headless opt-in.
    var keyringAccount: KeyringAccount {
        KeyringAccount(server: origin.description, userID: userID, userName: username, cacheStamp: tokenStamp, headless: headless)
    }
}

/// A transport that, when the server answers 401 (the token was refused),
/// runs `refused` before the command sees the answer: the cached copies of
/// the token go at once, so the next command asks the store of record.
struct TokenRefusalWatch: HTTPTransport {
    let base: any HTTPTransport
    let refused: @Sendable () -> Void

    func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
        let response = try base.send(request)
        if response.status == 401 { refused() }
        return response
    }
}

/// The one handle of a workspace's account store, shared by its copies.
private final class OpenedStore {
    var store: AccountStore?
}
