#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibCLI
import LibNet
import LibSync
import LibBase

/// `lib push --watch [--all]`: runs until SIGTERM, SIGINT or SIGHUP and pushes each
/// account's writes soon after they are saved, when a route to the server
/// appears, and after a backoff while the server is unreachable; each push
/// is an `AccountPush` under the account's push lock, so watchers and
/// manual pushes never send a write twice.
///
/// The store tells the watcher through inotify on the account's directory
/// (every commit writes the store's WAL file): every way a write enters the
/// outbox (`edit`, `resolve`, another process) is seen, and `edit` does no
/// extra work. The watcher's own pushes change the store too; they wake it
/// once and it finds no write that no push has started yet, so it sleeps
/// again.
///
/// Output: one line on standard error per push that sent something, and
/// each problem once (not at every retry); nothing when there is nothing to
/// do. Exit 0 when stopped, or when the one account watched signed out.
final class PushWatch {
    private let context: CommandContext
    private let paths: AccountPaths
    private let configDirectory: String
    /// nil: every signed-in account (`--all`); otherwise the one watched.
    private let onlyAccount: String?
    let events: WatchEvents
    private var accounts: [String: WatchedAccount] = [:]
    private var configWatch: Int32 = -1
    let defersWhenMetered: Bool
    /// Seconds between pulls while idle (`LIB_WATCH_PULL_INTERVAL`; 0: none).
    let pullInterval: Double
    private var networkManager: NetworkManagerMonitor?
    /// Said once: "no account is signed in".
    private var saidNoAccount = false
    /// `push --watch --strict`: updates under the whole-version rule.
    private let strict: Bool
    /// The mass-change guard each push is held to (nil: off), and `--force`.
    var massChangeGuard: MassChangeGuard? = .standard
    var force = false
    /// `pull --watch`: pulls only, never pushes.
    let pullsOnly: Bool
    /// One waiting change-feed request per account, answered when something changes.
    let feeds: FeedWatch
    /// Monotonic seconds, for when each account's push and pull are due.
    let monotonicNow: () -> Double

    /// How long after the first change of a burst the push starts: edits
    /// saved within it go in one push.
    static let coalescing = 0.2
    /// When a route event comes, the path is probed this much later (an
    /// address and its routes arrive as several messages).
    static let routeSettling = 0.05
    /// When NetworkManager says a portal or limited connectivity, it may be
    /// wrong: try again after this long anyway.
    static let networkManagerDoubt = 60.0

    init(_ context: CommandContext, all: Bool, strict: Bool = false, pullsOnly: Bool = false,
         monotonicNow: @escaping () -> Double = MonotonicClock.now) throws {
        self.context = context
        self.monotonicNow = monotonicNow
        self.strict = strict
        self.pullsOnly = pullsOnly
        let directories = try context.directories
        paths = AccountPaths(directories: directories)
        configDirectory = directories.config
        onlyAccount = all ? nil : try AccountWorkspace(context).name
        defersWhenMetered = context.environment["LIB_METERED"] == "defer"
        pullInterval = Self.pullInterval(context.environment)
        // Signals are blocked first: the feed threads inherit the mask.
        events = try WatchEvents()
        feeds = try FeedWatch()
        events.listen(toFeeds: feeds.descriptor)
    }

    func run() throws -> ExitCode {
        try PrivateFile.makeDirectory(configDirectory)
        configWatch = events.watch(directory: configDirectory)
        try reloadAccounts()
        sayWhatIsWatched()
        while true {
            if events.stopRequested { return .success }
            let now = monotonicNow()
            for account in accounts.values.sorted(by: { $0.name < $1.name }) {
                if let due = account.due, due <= now { attempt(account) }
                if events.stopRequested { return .success }
                if let due = account.pullDue, due <= now { pull(account) }
                if events.stopRequested { return .success }
            }
            if let onlyAccount, accounts[onlyAccount] == nil { return .success }
            let next = (accounts.values.compactMap(\.due) + accounts.values.compactMap(\.pullDue)).min()
            for event in events.wait(timeout: next.map { $0 - monotonicNow() }) {
                switch event {
                case .stop: return .success
                case .directoryChanged(let descriptor) where descriptor == configWatch: try reloadAccounts()
                case .directoryRemoved(let descriptor) where descriptor == configWatch:
                    configWatch = events.watch(directory: configDirectory)
                    try reloadAccounts()
                case .directoryChanged(let descriptor): storeChanged(descriptor)
                case .directoryRemoved(let descriptor):
                    // The account's files are gone (logout): the index says whether it is too.
                    if let account = accounts.values.first(where: { $0.watch == descriptor }) { account.watch = -1 }
                    try reloadAccounts()
                case .routesChanged: routesChanged()
                case .networkManagerChanged: networkManagerChanged()
                case .feedAnswered: feedAnswered()
                }
            }
        }
    }

    // MARK: Accounts coming and going

    /// Reads the account list again: starts watching accounts that signed
    /// in, lets go of those that signed out, and lets an account whose
    /// token was rejected try again (it may have signed in anew).
    private func reloadAccounts() throws {
        let index = try AccountIndex.load(from: configDirectory)
        let wanted = index.accounts.filter { onlyAccount == nil || $0.name == onlyAccount }
        for (name, account) in accounts where !wanted.contains(where: { $0.name == name }) {
            say("\(name) was signed out; no longer \(pullsOnly ? "pulling" : "pushing its writes").")
            events.unwatch(account.watch)
            feeds.forget(name)
            accounts[name] = nil
        }
        for account in wanted {
            if let watched = accounts[account.name] {
                if watched.needsLogin {
                    watched.needsLogin = false
                    // Its feed request starts again with the new token after the next pull.
                    feeds.forget(account.name)
                    watched.schedule(at: monotonicNow())
                }
                if watched.pullFailed && watched.pullDue == nil { watched.pullDue = monotonicNow() }
                continue
            }
            let workspace = AccountWorkspace(context, paths: paths, index: index, account: account)
            let store = try workspace.openStore()
            let watched = WatchedAccount(workspace: workspace, store: store,
                                         watch: events.watch(directory: paths.accountDirectory(account.name)))
            accounts[account.name] = watched
            watched.schedule(at: monotonicNow())
            // The library is made complete when the watch starts (WatchPull).
            watched.pullDue = monotonicNow()
        }
        if wanted.isEmpty && onlyAccount == nil && !saidNoAccount {
            say("No account is signed in; waiting for `lib login`.")
        }
        saidNoAccount = wanted.isEmpty
    }

    /// A store changed: push soon if it holds a write no push has started.
    private func storeChanged(_ descriptor: Int32) {
        if let account = accounts.values.first(where: { $0.watch == descriptor }), case .refused(let destructive) = account.waiting,
           let now = try? MassChange(store: account.store), now.destructive != destructive {
            account.waiting = .nothing
        }
        guard let account = accounts.values.first(where: { $0.watch == descriptor }),
              !account.needsLogin, case .nothing = account.waiting,
              (try? account.store.unattemptedWrites()) ?? 0 > 0
        else { return }
        account.schedule(at: monotonicNow() + Self.coalescing)
    }

    // MARK: The network

    private func routesChanged() {
        for account in accounts.values where account.pullFailed {
            account.pullDue = monotonicNow() + Self.routeSettling
        }
        for account in accounts.values {
            guard case .route = account.waiting else { continue }
            account.schedule(at: monotonicNow() + Self.routeSettling)
        }
    }

    private func networkManagerChanged() {
        guard let networkManager, networkManager.refresh() else { return }
        let status = networkManager.status
        for account in accounts.values where account.pullFailed && !(status?.metered ?? false) {
            account.pullDue = monotonicNow()
        }
        for account in accounts.values {
            switch account.waiting {
            case .networkManager where !(status?.holdsRequests ?? false):
                account.schedule(at: monotonicNow())
            case .metered where !(status?.metered ?? false):
                account.schedule(at: monotonicNow())
            default: break
            }
        }
    }

    /// Waiting feed requests answered: those accounts pull now, or right
    /// after their push when writes wait (a pull started after a save would
    /// not yield to it, and a feed that always answers would hold the push back).
    private func feedAnswered() {
        let now = monotonicNow()
        for name in feeds.answered() {
            guard let account = accounts[name] else { continue }
            if !pullsOnly, account.due == nil, ((try? account.store.unattemptedWrites()) ?? 0) > 0 {
                account.schedule(at: now)
            }
            account.pullDue = account.due.map { max($0, now) + 0.1 } ?? now
        }
    }

    /// NetworkManager's status, subscribing to its changes on first use
    /// (GIO is loaded only then: after a failure, or before a background
    /// push when LIB_METERED=defer asks for it).
    func networkManagerStatus() -> NetworkManagerStatus? {
        if let networkManager { return networkManager.status }
        let monitor = NetworkManagerMonitor()
        networkManager = monitor
        events.listen(toNetworkManager: monitor.descriptor)
        return monitor.status
    }

    // MARK: Pushing

    private func attempt(_ account: WatchedAccount) {
        account.due = nil
        guard !account.needsLogin, !pullsOnly else { return }
        let pending = (try? account.store.outbox.counts().pending) ?? 0
        guard pending > 0 else {
            account.settle()
            return
        }
        if case .route(let host, let port) = account.waiting, PathProbe.status(for: host, port: port) == .unavailable {
            if !events.hasRouteEvents { account.schedule(at: monotonicNow() + 1) }
            return
        }
        if defersWhenMetered, networkManagerStatus()?.metered == true {
            if case .metered = account.waiting {} else {
                say("Holding \(Wording.writes(pending)) of \(account.name): the connection is metered (LIB_METERED=defer).")
            }
            account.waiting = .metered
            return
        }
        var push = AccountPush(workspace: account.workspace, deadline: nil, lockWait: 0,
                               progress: WaitProgress(context, enabled: false),
                               stopRequested: { [events] in events.stopRequested })
        push.strict = strict
        push.massChangeGuard = massChangeGuard
        push.force = force
        let result = push.run()
        if result.answered > 0 {
            // One line per push: what went, then what needs a decision.
            let line = [result.summary, result.attention].compactMap { $0 }.joined(separator: " ")
            if result.attention == nil { say(line) } else { sayProblem(line) }
            // Then what others changed meanwhile.
            account.pullDue = monotonicNow()
        }
        let now = monotonicNow()
        switch result.stop {
        case nil:
            account.settle()
        case .interrupted:
            break
        case .lockBusy:
            // The other push sends what is there; look again when it is likely done.
            account.schedule(at: now + Double.random(in: 0.2...0.4))
        case .offline(let host, let port):
            account.report(result.problem, say: sayProblem)
            account.waiting = .route(host: host, port: port)
            // A route that is there already (the failure only looked like an offline one): back off.
            if PathProbe.status(for: host, port: port) != .unavailable {
                account.schedule(at: now + account.nextBackoff(retryAfter: nil, now: now))
            } else if !events.hasRouteEvents {
                account.schedule(at: now + 1)
            }
        case .temporary(let retryAfter):
            if let status = networkManagerStatus(), status.holdsRequests {
                account.report(result.problem, say: sayProblem)
                account.waiting = .networkManager
                account.schedule(at: now + max(Self.networkManagerDoubt, retryAfter ?? 0))
            } else {
                account.report(result.problem, say: sayProblem)
                account.waiting = .retry
                account.schedule(at: now + account.nextBackoff(retryAfter: retryAfter, now: now))
            }
        case .needsLogin:
            account.report(result.problem, say: sayProblem)
            account.needsLogin = true
        case .signedOut:
            sayProblem(result.problem?.named(account.name) ?? "\(account.name) was signed out.")
            events.unwatch(account.watch)
            feeds.forget(account.name)
            accounts[account.name] = nil
        case .refused:
            // Said once; tried again when the writes change (storeChanged).
            account.report(result.problem, say: sayProblem)
            account.waiting = .refused(destructive: result.refusal?.destructive ?? 0)
        case .failed:
            account.report(result.problem, say: sayProblem)
            account.waiting = .retry
            account.schedule(at: now + account.nextBackoff(retryAfter: nil, now: now, limit: 60))
        }
    }

    /// One line on standard error, whole (journald keeps it as one record).
    /// At a terminal, what went well is said without the `lib:` of a problem.
    func say(_ line: String) {
        let prefix = context.standardError.isTerminal ? "" : "\(ProgramInfo.name): "
        context.standardError.write(prefix + TerminalText.escaped(line, keepingLayout: true) + "\n")
    }

    /// A problem's line: `lib:` first, at a terminal too.
    func sayProblem(_ line: String) {
        context.standardError.write("\(ProgramInfo.name): \(TerminalText.escaped(line, keepingLayout: true))\n")
    }

    /// At a terminal, what the watch watches, once it starts: nothing says
    /// so otherwise until a write goes.
    private func sayWhatIsWatched() {
        guard context.standardError.isTerminal else { return }
        let names = accounts.keys.sorted()
        guard !names.isEmpty else { return }
        let what = pullsOnly ? "pulling what changes on the server" : "pushing each write saved here and pulling what changes on the server"
        let who = onlyAccount == nil ? "every signed-in account (\(names.joined(separator: ", ")))" : names[0]
        say("Watching \(who): \(what). Ctrl-C stops.")
    }
}

/// One account under `push --watch`: its store (kept open, so that the
/// watcher's own reads write nothing), its inotify watch, and what its next
/// push waits for.
final class WatchedAccount {
    enum Waiting {
        case nothing
        /// Offline: for a route to this host.
        case route(host: String, port: UInt16)
        /// The server was unreachable or failed: for the backoff to pass.
        case retry
        /// NetworkManager reports a portal, limited connectivity or connecting.
        case networkManager
        /// LIB_METERED=defer and the connection is metered.
        case metered
        /// The mass-change guard refused this many books: for the writes to change.
        case refused(destructive: Int)
    }

    let workspace: AccountWorkspace
    let store: AccountStore
    var watch: Int32
    /// When the next push starts (monotonic seconds); nil: when something happens.
    var due: Double?
    var waiting = Waiting.nothing
    /// The token was rejected or is missing: no push until `lib login`.
    var needsLogin = false
    /// When the next pull starts (monotonic seconds); nil: after the next push.
    var pullDue: Double?
    /// The last pull failed: it is retried with backoff, and when a route appears.
    var pullFailed = false
    var pullBackoff = RetryBackoff()
    var lastPullProblem: String?
    /// Pulls stopped at their budget in a row, and no pull before this
    /// (monotonic seconds) since the last of them (WatchPull.holdPulls).
    var budgetStops = 0
    var pullsHeldUntil: Double?
    private var backoff = RetryBackoff()
    private var outageStarted: Double?
    /// The last problem said, so that a retry failing the same way says nothing.
    private var lastProblem: AccountProblem?

    init(workspace: AccountWorkspace, store: AccountStore, watch: Int32) {
        self.workspace = workspace
        self.store = store
        self.watch = watch
    }

    var name: String { workspace.name }

    /// Pushes at `time`, or sooner if already due sooner.
    func schedule(at time: Double) {
        due = min(due ?? time, time)
    }

    /// The push went through (or there was nothing to push): back to idle.
    func settle() {
        waiting = .nothing
        backoff = RetryBackoff()
        outageStarted = nil
        lastProblem = nil
    }

    /// Says a problem unless it is the one said last.
    /// Says a problem once, until another one replaces it, naming the
    /// account (the watcher may push several).
    func report(_ problem: AccountProblem?, say: (String) -> Void) {
        guard let problem, problem != lastProblem else { return }
        lastProblem = problem
        say(problem.named(name))
    }

    /// The delay before the next try while the server stays unreachable:
    /// exponential with jitter, at most 1.5 s for the first minute of an
    /// outage (a server that comes back is seen within 2 s), then up to
    /// `limit`; never shorter than Retry-After.
    func nextBackoff(retryAfter: Double?, now: Double, limit: Double = 30) -> Double {
        let started = outageStarted ?? now
        outageStarted = started
        backoff.first = 0.25
        backoff.limit = now - started < 60 ? 1.5 : limit
        return backoff.nextDelay(retryAfter: retryAfter)
    }
}
