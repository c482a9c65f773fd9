import LibAccounts
import LibCLI
import LibJSON
import LibKeyring
import LibNet
import LibSync

/// `lib login [SERVER_URL] [--user NAME] [--password-stdin | --token-stdin] [--restore | --no-restore]`
enum Login: Verb {
    static let name = "login"

    static let serverURL = ArgumentSpec(
        "SERVER_URL", .text, .optional, "The server, such as https://library.example.org")
    static let user = OptionSpec.option(
        "user", value: "NAME", .text, "Sign in as NAME (asked on a terminal if missing)")
    static let passwordStdin = OptionSpec.flag(
        "password-stdin", "Read the password from standard input",
        details: "Without it, the password is prompted for on the terminal, without echo.")
    static let tokenStdin = OptionSpec.flag(
        "token-stdin", "Read an existing token from standard input",
        details: "The token is checked with the server before it is stored.")
    static let device = OptionSpec.flag(
        "device", "Sign in by approving a code elsewhere (no password typed here)",
        details: """
            Shows a code and a page's address; open the page anywhere and \
            approve the code with your password, or run lib device approve \
            CODE where lib is signed in. lib waits for the approval (15 \
            minutes at most; Ctrl-C stops it, leaving nothing behind).
            """)
    static let alias = OptionSpec.option(
        "alias", value: "NAME", .text, "Give the account a short name for the prompt and -A",
        details: "As lib switch ACCOUNT --alias NAME does. A later login keeps it.")
    static let restore = OptionSpec.flag("restore", "Restore writes set aside at the last logout")
    static let noRestore = OptionSpec.flag("no-restore", "Do not restore writes set aside at the last logout")
    static let headless = OptionSpec.flag(
        "headless", "Also keep the token in the kernel's persistent keyring, for cron",
        details: """
            So that cron jobs and systemd user services (lib push --wait 60, push --watch) \
            find the token after you logged out, when no Secret Service is reachable. \
            The persistent keyring lives while it is used (the kernel forgets it after \
            days unused); only this user and root can read it. Recorded with the \
            account until the next login without it or logout.
            """)

    static let command = CommandSpec(
        name: name, summary: "Sign in to a server; keep the token in the keyring",
        discussion: """
            Exchanges a password for a token (or stores a token given with \
            --token-stdin, or waits for a code shown with --device to be \
            approved elsewhere), then asks the server who you are. The account is \
            named user@host[:port] and becomes the current account.

            The token is kept in the Secret Service keyring, never on disk, \
            and cached for 15 minutes in the kernel's keyring (the session \
            keyring, LIB_TOKEN_CACHE_SECONDS), where commands read it without \
            D-Bus. When no keyring can be reached, login says how to fix that \
            and exits 4; there is no plain-text fallback. With --headless the \
            token is also kept in the kernel's persistent keyring, where cron \
            finds it after you logged out.

            Writes set aside when this user last signed out of this server are \
            restored: login asks on a terminal, and otherwise follows \
            --restore or --no-restore (the default is to leave them aside).
            """,
        arguments: [serverURL], options: [user, alias, passwordStdin, tokenStdin, device, restore, noRestore, headless],
        exclusiveGroups: [[passwordStdin.name, tokenStdin.name, device.name], [restore.name, noRestore.name]],
        examples: [
            .init("lib login https://library.example.org --user alice", "Sign in; the password is asked for."),
            .init("lib login http://127.0.0.1:8080 --user alice --password-stdin <pw.txt",
                  "Sign in with a password read from a file."),
            .init("lib login https://library.example.org --device",
                  "Sign in a headless box: approve the code it shows at the page, or with `lib device approve CODE`."),
            .init("lib login https://library.example.org --user alice --headless",
                  "Sign in so that `lib push --wait 60` in a crontab works after you log out."),
        ],
        exitStatuses: .usual(success: "Signed in.", also: [
            .init(.authentication, "Wrong password or token, a device sign-in denied or expired, or no usable keyring."),
            .init(.temporaryFailure),
        ]))

    struct Options {
        /// nil: the current account's server.
        var server: ServerOrigin?
        var user: String?
        var secretSource: SecretSource
        var restore: Bool?
        var headless = false
        var alias: String?

        enum SecretSource { case passwordFromStdin, tokenFromStdin, prompt, deviceCode }
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        var server: ServerOrigin?
        if let text = parsed.argument(Login.serverURL) {
            do { server = try ServerOrigin(parsing: text) } catch { throw UsageError(error.description, command: "login") }
        }
        let source: Options.SecretSource = parsed.isSet(Login.device) ? .deviceCode : parsed.isSet(Login.tokenStdin) ? .tokenFromStdin
            : parsed.isSet(Login.passwordStdin) ? .passwordFromStdin : .prompt
        let restore: Bool? = parsed.isSet(Login.restore) ? true : parsed.isSet(Login.noRestore) ? false : nil
        if let alias = parsed.text(Login.alias) { try Switch.checkAlias(alias, command: name) }
        if source == .deviceCode && parsed.text(Login.user) != nil {
            throw UsageError("--device signs in as whoever approves the code: leave out --user", command: name)
        }
        return Options(server: server, user: parsed.text(Login.user), secretSource: source, restore: restore,
                       headless: parsed.isSet(Login.headless), alias: parsed.text(Login.alias))
    }

    static func runsOnline(_ options: Options) -> Bool { true }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        guard let server = options.server ?? (try? AccountIndex.load(from: directories.config).current?.origin) else {
            throw UsageError("login needs the SERVER_URL, as in 'lib login http://127.0.0.1:8080'", command: "login")
        }
        let paths = AccountPaths(directories: directories)
        var index = try AccountIndex.load(from: directories.config)
        if let alias = options.alias, !alias.isEmpty {
            try Switch.checkAliasIsFree(alias, for: "\(options.user ?? "")@\(server.hostAndPort)", in: index)
        }

        // Everything that can fail without leaving a trace comes first: the
        // keyring (fail closed before a token exists anywhere), the secret.
        try checkKeyringReachable(context)
        let token = try obtainToken(options, server: server, context)

        let session = SessionClient(api: ServerAPI(transport: context.makeTransport(), origin: server, token: token))
        let me: SessionClient.Identity
        let answer: SessionClient.IdentityAnswer
        do {
            answer = try session.identity().answer
        } catch {
            throw explain(error, server: server, context)
        }
        switch answer {
        case .identity(let identity): me = identity
        case .unknownToken: throw CommandFailure("\(server.hostAndPort) did not accept that token", exitCode: .authentication)
        }
        // The name becomes a directory and is shown at every prompt: one
        // that breaks the server's own rule is refused before anything is
        // made (a name such as `../x` would leave lib's directories).
        let username = me.username
        guard UserName.isValid(username) else {
            session.signOut(timeout: 5)
            throw CommandFailure("\(server.hostAndPort) gave the user name \"\(TerminalText.escaped(username))\", "
                                 + "which is not a valid user name (\(UserName.rule)): not signed in")
        }
        // The id is written into the accounts file and names keyring items:
        // it follows the name's rule (a line break or a tab in it would
        // forge or break the file's lines).
        let userID = me.userID
        guard UserName.isValid(userID) else {
            session.signOut(timeout: 5)
            throw CommandFailure("\(server.hostAndPort) gave the user id \"\(TerminalText.escaped(String(userID.prefix(80))))\""
                                 + "\(userID.count > 80 ? "…" : ""), which is not a valid user id (\(UserName.rule)): not signed in")
        }
        // A new stamp: cached copies of an earlier login's token, in any
        // session's keyring, stop being used (KernelCachedTokenStore).
        let restoredAlias = options.alias == nil
            ? keptAlias(of: Account(origin: server, userID: userID, username: username), index: index, directories: directories) : nil
        let account = Account(origin: server, userID: userID, username: username,
                              tokenStamp: Account.newTokenStamp(), headless: options.headless,
                              alias: options.alias.map { $0.isEmpty ? nil : $0 }
                                ?? index.account(named: "\(username)@\(server.hostAndPort)")?.alias ?? restoredAlias)
        let keyringAccount = account.keyringAccount

        // A token this login replaces is put back if the login fails after
        // storing the new one; the new one is revoked and removed either way.
        let replaced = try? context.tokenStore.token(for: keyringAccount)
        do {
            try context.tokenStore.store(token: token, for: keyringAccount)
        } catch {
            session.signOut(timeout: 5)
            throw error
        }
        do {
            return try finishSignIn(account, options: options, restoredAlias: account.alias == restoredAlias ? restoredAlias : nil,
                                    index: &index, paths: paths, directories: directories, context)
        } catch {
            if let replaced {
                try? context.tokenStore.store(token: replaced, for: keyringAccount)
            } else {
                try? context.tokenStore.deleteToken(for: keyringAccount)
            }
            session.signOut(timeout: 5)
            throw error
        }
    }

    /// What follows storing the token: the account's files and index. Any
    /// failure here (a full disk) undoes the sign-in (see `run`).
    private static func finishSignIn(_ account: Account, options: Options, restoredAlias: String?, index: inout AccountIndex, paths: AccountPaths,
                                     directories: LibDirectories, _ context: CommandContext) throws -> ExitCode {

        // A different identity under the same name (the server's user was
        // re-created): its writes are set aside, never sent as the new one.
        if let previous = index.account(named: account.name), !previous.isSameIdentity(as: account) {
            let old = AccountWorkspace(context, paths: paths, index: index, account: previous)
            if let store = try? AccountStore(path: paths.storePath(previous.name)) {
                try old.setAside.setAside(from: store, identityKey: old.identityKey, now: context.now().secondsSince1970)
            }
            try? context.tokenStore.deleteToken(for: old.keyringAccount)
            paths.removeAccountFiles(previous.name)
        }

        let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
        let store = try workspace.openStore()
        let restored = try offerSetAsideWrites(workspace, store: store, restore: options.restore)

        index = try AccountIndex.update(in: directories.config) { index in
            index.add(account)
            var kept = try KeptAliases.load(from: directories.config)
            if kept.alias(of: account) != nil {
                kept.forget(account)
                try kept.save(to: directories.config)
            }
            return index
        }
        // The set-aside count changed under the outbox's feet, and accounts
        // of the same user name now need a longer short name.
        PromptFile(workspace).rewrite((try? OutboxSummary(store)) ?? OutboxSummary())
        PromptFile.forgetNamesakes(of: account, in: index, paths: paths)

        if context.globalOptions.json {
            let document: JSONValue = [
                "account": .string(account.name), "server": .string(account.origin.description),
                "user": ["id": .string(account.userID), "username": .string(account.username)],
                "restored": .integer(Int64(restored)),
                "alias": account.alias.map(JSONValue.string) ?? .null, "alias_restored": .bool(restoredAlias != nil),
            ]
            context.standardOutput.write(document.prettyPrinted() + "\n")
        } else if !context.globalOptions.quiet {
            context.standardOutput.write("Signed in to \(account.origin.hostAndPort) as \(account.username) (account \(account.name))\n")
            if let restoredAlias {
                context.standardOutput.write("Its alias '\(restoredAlias)' is back, as before your last logout.\n")
            }
            if restored > 0 {
                context.standardOutput.write("Restored \(Wording.writes(restored)) set aside at your last logout; `lib push` sends them.\n")
            }
        }
        return .success
    }

    /// The alias this identity had when it last signed out, unless another
    /// account has taken it (as an alias or a name) since.
    private static func keptAlias(of account: Account, index: AccountIndex, directories: LibDirectories) -> String? {
        guard index.account(named: account.name)?.alias == nil,
              let alias = (try? KeptAliases.load(from: directories.config))?.alias(of: account),
              (try? Switch.checkAliasIsFree(alias, for: account.name, in: index)) != nil
        else { return nil }
        return alias
    }

    /// Exchanges the password for a token, reads the token given, or
    /// waits for a device code to be approved.
    private static func obtainToken(_ options: Options, server: ServerOrigin, _ context: CommandContext) throws -> String {
        switch options.secretSource {
        case .deviceCode:
            do {
                return try DeviceLogin.waitForToken(server: server, context)
            } catch let failure as RequestFailure {
                throw explain(failure, server: server, context)
            }
        case .tokenFromStdin:
            let token = readSecret(context)
            guard !token.isEmpty else { throw UsageError("--token-stdin: standard input was empty", command: "login") }
            return token
        case .passwordFromStdin, .prompt:
            var user = options.user
            if user == nil, context.standardInput.isTerminal || options.secretSource == .prompt {
                user = TerminalPrompt.ask("User name for \(server.hostAndPort): ", secret: false)
            }
            guard let user, !user.isEmpty else {
                throw UsageError("login needs --user NAME when there is no terminal to ask on", command: "login")
            }
            let password: String
            if options.secretSource == .passwordFromStdin {
                password = readSecret(context)
            } else {
                // A password piped in without --password-stdin is not read: said before the prompt, or instead of it.
                let piped = !context.standardInput.isTerminal
                let notice = piped ? "Standard input is not read without --password-stdin.\n" : ""
                guard let typed = TerminalPrompt.ask(notice + "Password for \(user)@\(server.hostAndPort): ", secret: true) else {
                    throw UsageError(piped
                        ? "standard input is not a terminal and there is no terminal to ask for the password on: to read the password from standard input, add --password-stdin"
                        : "no terminal to ask for the password on: use --password-stdin", command: "login")
                }
                password = typed
            }
            guard !password.isEmpty else { throw UsageError("the password is empty", command: "login") }
            return try exchange(user: user, password: password, server: server, context)
        }
    }

    /// `POST /v1/sessions`: a password for a token.
    private static func exchange(user: String, password: String, server: ServerOrigin, _ context: CommandContext) throws -> String {
        let session = SessionClient(api: ServerAPI(transport: context.makeTransport(), origin: server, token: nil))
        let answer: SessionClient.SignInAnswer
        do {
            answer = try session.signIn(user: user, password: password)
        } catch .problem(let problem) {
            throw CommandFailure("\(server.hostAndPort) did not sign you in: \(problem.detail)")
        } catch {
            throw explain(error, server: server, context)
        }
        switch answer {
        case .token(let token): return token
        case .refused: throw CommandFailure("Wrong user name or password for \(server.hostAndPort)", exitCode: .authentication)
        }
    }

    /// One harmless lookup, so that a missing or locked keyring is found
    /// before a token exists anywhere.
    private static func checkKeyringReachable(_ context: CommandContext) throws {
        let probe = KeyringAccount(server: "lib://keyring-check", userID: "none", userName: "none")
        do {
            _ = try context.tokenStore.token(for: probe)
        } catch .notFound {
            return
        }
    }

    private static func readSecret(_ context: CommandContext) -> String {
        var text = String(decoding: context.standardInput.readAll(), as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }

    /// Writes set aside by this identity's last logout: restored with
    /// `--restore`, kept with `--no-restore`, asked about on a terminal.
    private static func offerSetAsideWrites(_ workspace: AccountWorkspace, store: AccountStore, restore: Bool?) throws -> Int {
        let waiting = workspace.setAside.count(for: workspace.identityKey)
        guard waiting > 0 else { return 0 }
        let context = workspace.context
        var decision = restore
        if decision == nil, context.standardInput.isTerminal {
            decision = TerminalPrompt.confirm("\(Wording.writes(waiting).capitalizedFirst) \(waiting == 1 ? "was" : "were") set aside when you last signed out. Restore \(waiting == 1 ? "it" : "them")?", defaultYes: true)
        }
        guard decision == true else {
            context.standardError.write("\(Wording.writes(waiting).capitalizedFirst) set aside at your last logout are kept aside; `lib login --restore` brings them back.\n")
            return 0
        }
        return try workspace.setAside.restore(into: store, identityKey: workspace.identityKey)
    }

    static func explain(_ failure: RequestFailure, server: ServerOrigin, _ context: CommandContext) -> CommandFailure {
        switch failure {
        case .transport(let failure):
            let explanation = context.diagnose(failure, account: nil, pendingWrites: 0)
            return CommandFailure(explanation.message, exitCode: explanation.exitCode)
        case .problem(let problem):
            return CommandFailure("\(server.hostAndPort) answered \(problem.request) with \(problem.status): \(problem.detail)")
        }
    }
}

#if canImport(Glibc)
import Glibc
import LibBase
import LibClient
#endif
