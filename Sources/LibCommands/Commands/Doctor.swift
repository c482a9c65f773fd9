#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibCLI
import LibJSON
import LibKeyring
import LibNet
import LibStore
import LibBase
import LibClient
import LibSync

/// `lib doctor`: checks, in the order a failure in one explains the next,
/// the session bus, the Secret Service, each account's token, store and
/// server, the clock, and the proxies, and says how to fix what is wrong.
/// Exit 0 when all is well (warnings aside), else the worst problem's code.
enum Doctor: Verb {
    static let name = "doctor"

    static let command = CommandSpec(
        name: name, summary: "Check the bus, keyring, tokens, stores and servers",
        discussion: """
            Checks what lib needs, one line per check with what it found and, \
            for a problem, how to fix it: how the D-Bus session bus was found \
            (DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus or /run/user/$UID/bus) \
            and whether cron jobs will find it too; whether the Secret Service \
            answers and is unlocked; each account's token; each account's store \
            (PRAGMA quick_check); each account's offline library (how many books \
            are cached, and when the last pull was); the network path to each server and whether \
            the server says who the token is; the clock against the server's Date; and the \
            proxies in effect.

            Warnings (such as a bus that cron will not find) do not change the \
            exit status; problems do, the worst one deciding it. With --json, \
            one document lists every check (doctor.schema.json).
            """,
        examples: [
            .init("lib doctor", "Check everything, for every signed-in account."),
            .init("lib -A alice doctor --json", "The same for one account, for a script."),
        ],
        exitStatuses: .usual(success: "All is well (warnings aside).", failure: "A store failed its check, or another failure.", also: [
            .init(.authentication, "No session bus, no Secret Service, a locked keyring, or a token missing or rejected."),
            .init(.temporaryFailure, "A server could not be reached."),
        ]))

    struct Options {}

    static func options(_ parsed: ParsedCommand) throws -> Options { Options() }

    static func runsOnline(_ options: Options) -> Bool { true }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        var checks = busChecks(context.environment)
        let busWorks = !checks.contains { $0.name == "session-bus" && $0.status == .problem }
        var keyringWorks = false
        if busWorks {
            let service = secretServiceCheck(context)
            keyringWorks = service.status != .problem
            checks.append(service)
        }

        let directories = try context.directories
        let index = try AccountIndex.load(from: directories.config)
        let paths = AccountPaths(directories: directories)
        let accounts = context.namesAccount ? [try context.chooseAccount(in: index).account] : index.accounts
        if accounts.isEmpty {
            checks.append(.warning("accounts", "none signed in", fix: "run `lib login SERVER_URL`"))
        }
        for account in accounts {
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
            // A token cached in the kernel keyring is found (and shown as
            // such) even where the Secret Service is unreachable or stuck.
            let (check, token) = tokenCheck(workspace, secretServiceWorks: keyringWorks)
            if let check { checks.append(check) }
            checks.append(storeCheck(workspace))
            checks.append(libraryCheck(workspace))
            if let refused = massChangeCheck(workspace) { checks.append(refused) }
            checks += serverChecks(workspace, token: token)
            checks.append(accountProxyCheck(workspace.account.origin, account: workspace.name, context.environment))
        }
        checks.append(proxyCheck(context.environment))

        let worst = checks.map(\.exitCode).reduce(ExitCode.success, Push.worse)
        if context.globalOptions.json {
            let document = JSONValue.object(JSONObject([
                ("checks", .array(checks.map(\.json))), ("exit_code", .integer(Int64(worst.rawValue))),
            ]))
            context.standardOutput.write(document.prettyPrinted() + "\n")
        } else if !(context.globalOptions.quiet && worst == .success) {
            let painter = context.outputPainter
            for check in checks where !(context.globalOptions.quiet && check.status == .ok) {
                context.standardOutput.write(check.text(painter, width: context.outputWidth))
            }
        }
        return worst
    }

    // MARK: - The session bus

    /// How the bus is found now, and whether a cron job (no environment of
    /// its own) would find it too.
    static func busChecks(_ environment: [String: String]) -> [DoctorCheck] {
        let runtimeBus = "/run/user/\(getuid())/bus"
        var source: String
        var address: String
        if let named = environment["DBUS_SESSION_BUS_ADDRESS"], !named.isEmpty {
            source = "DBUS_SESSION_BUS_ADDRESS"
            address = named
        } else if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), isSocket(runtime + "/bus") {
            source = "$XDG_RUNTIME_DIR/bus"
            address = "unix:path=" + runtime + "/bus"
        } else if isSocket(runtimeBus) {
            source = runtimeBus
            address = "unix:path=" + runtimeBus
        } else {
            return [.problem(
                "session-bus",
                "none: DBUS_SESSION_BUS_ADDRESS is unset and neither $XDG_RUNTIME_DIR/bus nor \(runtimeBus) exists",
                fix: "run lib in a login session, or start one with `dbus-run-session -- $SHELL`; for cron, "
                    + Self.cronFix, .authentication)]
        }
        var checks: [DoctorCheck] = []
        if let failure = connectionFailure(address) {
            checks.append(.problem("session-bus", "\(source) names \(address), but \(failure)",
                                   fix: "unset DBUS_SESSION_BUS_ADDRESS or point it at a running bus", .authentication))
        } else {
            checks.append(.ok("session-bus", "found through \(source) (\(address))"))
        }
        if isSocket(runtimeBus) {
            checks.append(.ok("cron-bus", "cron jobs find \(runtimeBus)"))
        } else {
            checks.append(.warning(
                "cron-bus", "\(runtimeBus) does not exist, so lib run from cron cannot reach the keyring",
                fix: Self.cronFix))
        }
        return checks
    }

    /// How cron reaches the token: said once, by whichever bus check fails.
    static let cronFix = "sign in once from a desktop session with `lib login --headless` (cron then reads the token from the kernel's "
        + "persistent keyring), or install dbus-user-session and run `loginctl enable-linger $USER`"

    /// Why nothing answers at a `unix:` bus address, or nil when something
    /// does (or the address is of a kind this cannot try).
    static func connectionFailure(_ address: String) -> String? {
        guard let unix = address.split(separator: ";").first(where: { $0.hasPrefix("unix:") }) else { return nil }
        var path: String?
        var abstract = false
        for pair in unix.dropFirst(5).split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "path" { path = unescape(parts[1]) }
            if parts[0] == "abstract" { path = unescape(parts[1]); abstract = true }
        }
        guard let path else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: socketAddress.sun_path) - 1 else { return "the path is too long" }
        let offset = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index + offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + offset + (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        return result == 0 ? nil : "nothing answers there (\(String(cString: strerror(errno))))"
    }

    private static func unescape(_ value: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isSocket(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    // MARK: - The keyring

    /// Asks the Secret Service for a token nobody has: "not found" means it
    /// answers; anything else is the keyring's problem, said as such.
    static func secretServiceCheck(_ context: CommandContext) -> DoctorCheck {
        let probe = KeyringAccount(server: "lib-doctor-probe", userID: "lib-doctor-probe", userName: "lib-doctor-probe")
        do {
            _ = try context.tokenStore.token(for: probe)
            return .ok("secret-service", "answers")
        } catch .notFound {
            return .ok("secret-service", "answers")
        } catch {
            return .problem("secret-service", error.description, fix: nil, .authentication)
        }
    }

    /// Where the account's token is (never the token itself): the kernel
    /// keyring's cache and its time left, the persistent keyring, or the
    /// Secret Service. Without a working Secret Service only the caches are
    /// asked (nil check when they have nothing: the problem is above).
    static func tokenCheck(_ workspace: AccountWorkspace, secretServiceWorks: Bool = true) -> (DoctorCheck?, String?) {
        let name = workspace.name
        let headless = workspace.account.headless ? "; headless: a copy in the persistent keyring" : ""
        let found: FoundToken
        do {
            if let cached = workspace.context.tokenStore.cachedToken(for: workspace.keyringAccount) {
                found = cached
            } else if secretServiceWorks {
                found = try workspace.context.tokenStore.lookUp(for: workspace.keyringAccount)
            } else {
                return (.problem("token", account: name, "not in the kernel keyring's cache, and the Secret Service is unreachable (above)",
                                 fix: "fix the Secret Service, or sign in again with `lib login \(workspace.account.origin)`", .authentication), nil)
            }
        } catch .notFound {
            return (.problem("token", account: name, "no token in the keyring",
                             fix: "run `lib login \(workspace.account.origin)`", .authentication), nil)
        } catch .locked {
            return (.problem("token", account: name, "the keyring is locked",
                             fix: KeyringError.locked.description, .authentication), nil)
        } catch {
            return (.problem("token", account: name, error.description, fix: nil, .authentication), nil)
        }
        let place: String
        switch found.source {
        case .sessionCache(let left):
            place = "in the kernel keyring's cache (session keyring), \(AgeWording.duration(left)) left" + headless
        case .persistentKeyring(let expiry):
            place = "in the persistent keyring (headless\(expiry.map { "; the kernel keeps it \(AgeWording.duration($0)) after its last use" } ?? ""))"
        case .secretService(let cachedFor):
            place = "in the keyring (Secret Service), unlocked"
                + (cachedFor.map { "; now cached in the kernel keyring for \(AgeWording.duration($0))" } ?? "") + headless
        }
        return (.ok("token", account: name, place), found.token)
    }

    // MARK: - The store

    static func storeCheck(_ workspace: AccountWorkspace) -> DoctorCheck {
        let path = workspace.paths.storePath(workspace.name)
        guard access(path, F_OK) == 0 else {
            return .ok("store", account: workspace.name, "none yet (nothing cached or saved)")
        }
        do {
            var options = DatabaseOptions()
            options.readOnly = true
            options.create = false
            let database = try Database(path: path, options: options)
            let answers = try database.query("PRAGMA quick_check").compactMap { $0[0].text }
            guard answers == ["ok"] else {
                return .problem("store", account: workspace.name, "\(path): quick_check found " + answers.prefix(3).joined(separator: "; "),
                                fix: "move the file away to start the account's store afresh (its pending writes are lost)", .failure)
            }
            return .ok("store", account: workspace.name, "\(path): quick_check ok")
        } catch {
            return .problem("store", account: workspace.name, CommandFailure(reporting: error).message, fix: nil, .failure)
        }
    }

    // MARK: - The offline library

    /// "20,000 books cached; last pull 2026-12-04 21:10 (5 minutes ago)", or
    /// "never pulled" with the command that copies the library.
    static func libraryCheck(_ workspace: AccountWorkspace) -> DoctorCheck {
        let path = workspace.paths.storePath(workspace.name)
        let collection = Pull.collection.description
        let never = "never pulled (`\(workspace.lib) pull` keeps a copy of the whole library for offline reads)"
        guard access(path, F_OK) == 0 else {
            return .ok("library", account: workspace.name, "no \(collection) cached; " + never)
        }
        do {
            let store = try AccountStore(readingFrom: path)
            let count = try store.cache.count(under: collection + "/")
            let books = count == 0 ? "no \(collection)" : Wording.count(count, "book")
            guard let pulled = try LibraryMirror(db: store.database, collection: collection).lastPulled() else {
                return .ok("library", account: workspace.name, "\(books) cached; " + never)
            }
            let ago = AgeWording.describe(seconds: workspace.context.now().secondsSince1970 - pulled)
            return .ok("library", account: workspace.name, "\(books) cached; last pull \(LocalTime.stamp(pulled)) (\(ago))")
        } catch {
            return .problem("library", account: workspace.name, CommandFailure(reporting: error).message, fix: nil, .failure)
        }
    }

    /// A warning while the mass-change guard's refusal of a push (as from
    /// cron) stands: nothing of it was sent.
    static func massChangeCheck(_ workspace: AccountWorkspace) -> DoctorCheck? {
        let path = workspace.paths.storePath(workspace.name)
        guard access(path, F_OK) == 0, let store = try? AccountStore(readingFrom: path),
              let refusal = (try? MassChangeRefusal.recorded(in: store)) ?? nil else { return nil }
        return .warning("push", account: workspace.name, MassChangeWords.kept(refusal, lib: workspace.lib),
                        fix: "look at `\(workspace.lib) push --dry-run`; `\(workspace.lib) discard PATH` takes back what you did not mean")
    }

    // MARK: - The server

    /// The network path to the server, `GET /v1/me`, and the clock against its `Date`.
    static func serverChecks(_ workspace: AccountWorkspace, token: String?) -> [DoctorCheck] {
        let origin = workspace.account.origin
        let path = PathProbe.status(for: origin.host, port: UInt16(origin.port))
        guard let token else {
            return [.warning("server", account: workspace.name, "\(origin.hostAndPort): network path \(path); \(SessionClient.identityRequest) not asked (no token)",
                             fix: "fix the token first")]
        }
        let session = SessionClient(api: workspace.api(token: token, timeout: 10))
        let started = MonotonicClock.now()
        let answer: SessionClient.IdentityAnswer
        let serverDate: Int?
        do {
            (answer, serverDate) = try session.identity()
        } catch {
            let failure = CommandFailure(reporting: workspace.explained(error))
            return [.problem("server", account: workspace.name, "\(origin.hostAndPort): network path \(path); \(failure.message)",
                             fix: nil, failure.exitCode)]
        }
        let milliseconds = Int(((MonotonicClock.now() - started) * 1000).rounded())
        var checks: [DoctorCheck] = []
        switch answer {
        case .identity(let identity):
            checks.append(.ok("server", account: workspace.name,
                              "\(origin.hostAndPort): network path \(path); \(SessionClient.identityRequest) answered 200 as \(identity.username) in \(milliseconds) ms"))
        case .unknownToken:
            checks.append(.problem("server", account: workspace.name, "\(origin.hostAndPort) rejected the token (401)",
                                   fix: "run `lib login \(origin)`", .authentication))
        }
        if let date = serverDate {
            let skew = workspace.context.now().secondsSince1970 - Double(date)
            let seconds = Int(skew.magnitude.rounded())
            if seconds <= 60 {
                checks.append(.ok("clock", account: workspace.name, "within \(seconds) s of \(origin.hostAndPort)"))
            } else {
                checks.append(.warning("clock", account: workspace.name,
                                       "\(seconds) s \(skew > 0 ? "ahead of" : "behind") \(origin.hostAndPort); ages lib shows will be off",
                                       fix: "synchronise the clock (systemd-timesyncd, chrony)"))
            }
        }
        return checks
    }

    // MARK: - Proxies

    /// The proxy variables libcurl reads, userinfo redacted; uppercase
    /// HTTP_PROXY, which libcurl ignores (httpoxy), is a warning.
    static func proxyCheck(_ environment: [String: String]) -> DoctorCheck {
        let names = ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        let set = names.compactMap { name in environment[name].flatMap { $0.isEmpty ? nil : "\(name)=\(redacted($0))" } }
        if let ignored = environment["HTTP_PROXY"], !ignored.isEmpty, environment["http_proxy"] == nil {
            return .warning("proxies", (set + ["HTTP_PROXY=\(redacted(ignored)) (ignored)"]).joined(separator: ", "),
                            fix: "libcurl ignores HTTP_PROXY: set http_proxy instead")
        }
        return .ok("proxies", set.isEmpty ? "none" : set.joined(separator: ", "))
    }

    /// Which proxy this account's server's requests take, as lib chooses it
    /// (`ProxySetting`): a server on this machine bypasses one unless
    /// LIB_PROXY_LOOPBACK=1.
    static func accountProxyCheck(_ origin: ServerOrigin, account: String, _ environment: [String: String]) -> DoctorCheck {
        if let proxy = ProxySetting.forEndpoint(origin, environment: environment) {
            return .ok("proxy", account: account, "\(proxy.display) (set in \(proxy.variable))")
        }
        let skipped = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains { !(environment[$0] ?? "").isEmpty }
        let loopback = ProxySetting.forEndpoint(origin, environment: environment.merging([ProxySetting.loopbackVariable: "1"]) { $1 }) != nil
        return .ok("proxy", account: account, skipped && loopback
            ? "none: \(origin.host) is on this machine (LIB_PROXY_LOOPBACK=1 sends it through the proxy)" : "none: a direct connection")
    }

    /// A proxy URL with any `user:password@` replaced, so that no secret is printed.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let scheme = url.split(separator: "/", maxSplits: 1).first.map { $0.hasSuffix(":") && url.dropFirst($0.count).hasPrefix("//") }
        let start = scheme == true ? url.index(url.startIndex, offsetBy: url.prefix { $0 != ":" }.count + 3) : url.startIndex
        guard start <= at else { return url }
        return String(url[..<start]) + "REDACTED" + String(url[at...])
    }
}
