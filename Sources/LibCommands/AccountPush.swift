#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibNet
import LibSync
import LibBase
import LibClient

/// One account's push, start to end: take the account's push lock (waiting
/// within the budget), read its generation, send the outbox in order over
/// one connection, and, with a deadline (`push --wait`), keep trying until
/// the writes are sent or the time is up — waiting for a network route when
/// offline, backing off when the server is unreachable or busy.
struct AccountPush {
    let workspace: AccountWorkspace
    /// Monotonic seconds after which nothing new starts; nil: one pass, no retry.
    let deadline: Double?
    /// How long to wait for another push of the account without a deadline.
    let lockWait: Double
    let progress: WaitProgress
    /// Asked between two requests: true ends the push after the request on
    /// the wire, its answer recorded (`push --watch` on SIGTERM).
    var stopRequested: () -> Bool = { false }

    /// `push --strict`: updates go under the whole-version rule.
    var strict = false
    /// The mass-change guard this push checks its writes against (nil: off,
    /// `LIB_GUARD=off`); the server checks each request against its own.
    var massChangeGuard: MassChangeGuard? = .standard
    /// `push --force`: no guard here, and the server is told the writes are meant.
    var force = false
    /// Monotonic seconds, for the deadline, the backoff and the progress line.
    var monotonicNow: () -> Double = MonotonicClock.now

    /// How long a push without `--wait` waits for an overlapping one.
    static let defaultLockWait = 30.0

    /// How the push ended: the summary for standard output (nil when there
    /// is nothing to say), the problem and what waits for a decision
    /// (conflicts, rejections) for standard error, the exit code.
    struct Result {
        var summary: String?
        var problem: AccountProblem?
        var exitCode: ExitCode
        var attention: String? = nil
        /// Each write sent, in order, and the outbox's counts afterwards (for `--json`).
        var writes: [PushWriteResult] = []
        var counts: (pending: Int, conflicts: Int, rejected: Int)? = nil
        /// For `push --watch`: how many writes the server answered (sent,
        /// conflicts, rejections), and why the push stopped short.
        var answered = 0
        var stop: Stop?
        /// The mass-change guard's refusal (exit code 5): nothing was sent.
        var refusal: MassChangeRefusal? = nil
    }

    /// Why a push ended before the outbox was empty, as `push --watch`
    /// schedules its next attempt.
    enum Stop {
        /// Another push of the account holds the lock.
        case lockBusy
        /// No route to the server: try again when one appears.
        case offline(host: String, port: UInt16)
        /// Unreachable, 5xx, 429...: try again after a while (Retry-After, seconds).
        case temporary(retryAfter: Double?)
        /// The token was rejected or is missing: nothing more until `lib login`.
        case needsLogin
        /// Logout began during the push.
        case signedOut
        /// stopRequested said so.
        case interrupted
        /// The mass-change guard refused the writes: nothing more until
        /// they change or `push --force`.
        case refused
        /// Anything else (TLS, a store problem...).
        case failed
    }

    private var name: String { workspace.name }
    private var host: String { workspace.account.origin.hostAndPort }

    func run() -> Result {
        do {
            return try push()
        } catch {
            let failure = CommandFailure(reporting: error)
            return failed(failure.message, failure.exitCode, namesAccount: failure.account == name)
        }
    }

    /// A push that stopped on an error: the message names the account (under
    /// `--all` several say the same) and says what is kept on this device.
    private func failed(_ message: String, _ code: ExitCode, namesAccount: Bool = false) -> Result {
        var text = namesAccount ? message : "\(name): \(message)"
        if let pending = try? workspace.openStore().outbox.counts().pending {
            text += (text.hasSuffix(".") ? " " : ". ") + Self.saved(pending)
        }
        return Result(summary: nil, problem: AccountProblem(text, namesAccount: true), exitCode: code,
                      stop: code == .authentication ? .needsLogin : .failed)
    }

    private func push() throws -> Result {
        let store = try workspace.openStore()
        // Read once, before the lock: a logout that begins while this push
        // waits raises it, and PushRun then sends nothing.
        let generation = try store.generation()
        if try store.outbox.counts().pending == 0 {
            try MassChangeRefusal.clear(in: store)
            return try finish(Tally(), store: store)
        }
        if let deadline, NetworkManagerWait.defersWhenMetered(workspace.context) {
            // Asked before a request only because the user asked for it.
            let outcome = NetworkManagerWait(progress: progress).wait(
                while: \.metered, until: deadline, saying: "The connection is metered (LIB_METERED=defer): waiting")
            if case .deadline = outcome {
                let pending = try store.outbox.counts().pending
                return Result(summary: nil, problem: AccountProblem("\(name): the connection is metered and LIB_METERED=defer holds background pushes. \(Self.saved(pending))", namesAccount: true),
                              exitCode: .temporaryFailure, stop: .temporary(retryAfter: nil))
            }
        }

        let lock = try acquireLock(progress)
        guard let lock else {
            let pending = try store.outbox.counts().pending
            return Result(summary: nil, problem: AccountProblem("Another push of \(name) is still running; \(Self.saved(pending))", namesAccount: true),
                          exitCode: .temporaryFailure, stop: .lockBusy)
        }
        defer { withExtendedLifetime(lock) {} }
        // Counted under the lock: what this push would send, before anything is.
        if let refused = try refusedByGuard(store) { return refused }

        let token = try workspace.token()
        let explainer = FailureExplainer { [workspace] in workspace.context.diagnose($0, account: workspace.name, pendingWrites: 0) }
        let (api, heard) = try workspace.watchedAPI(token: token, store: store)
        defer { workspace.recordContact(heard, store: store) }
        var sender = HTTPWriteSender(api: api, rules: try BookRules.forAccount(store),
                                     deadline: deadline, explainer: explainer, strict: strict || Self.strictByConfiguration(workspace.context),
                                     memory: protocolMemory(store), confirmsMassChange: force, stopRequested: stopRequested)
        var backoff = RetryBackoff()
        var tally = Tally()
        let counter = PushProgress(progress: progress, pending: try store.outbox.counts().pending,
                                   records: ProgressRecords(workspace.context, command: "push", account: name))
        while true {
            // The context's clock (a fixed one in LibCommandsTests): when a write was sent.
            let (report, stopped) = try PushRun(store: store, generation: generation)
                .run(with: &sender, now: { workspace.context.now().secondsSince1970 },
                     answered: { counter.show(answered: tally.results.count + $0) })
            counter.clear()
            tally.add(report)
            switch report.stop {
            case nil:
                return try finish(tally, store: store)
            case .unauthorized:
                return try finish(tally, store: store, stop: .needsLogin, problem: AccountProblem(
                    "Your session for \(name) has expired: run `lib login \(workspace.account.origin)`. \(Self.saved(try store.outbox.counts().pending))",
                    namesAccount: true),
                    exitCode: .authentication)
            case .loggedOut:
                return try finish(tally, store: store, stop: .signedOut, problem: AccountProblem(
                    "\(name) was signed out during the push; the writes not sent were set aside.", namesAccount: true),
                    exitCode: .authentication)
            case .temporary(_, let retryAfter):
                let pending = try store.outbox.counts().pending
                if case .stopped = stopped {
                    return try finish(tally, store: store, stop: .interrupted)
                }
                if case .massChangeRefused(let refusal) = stopped {
                    // The server's guard, stricter than this device's: that request applied nothing.
                    return try refused(refusal, tally: tally, store: store)
                }
                guard case .failed(let failure, let diagnosed) = stopped else {
                    return try finish(tally, store: store, problem: AccountProblem("Out of time; \(Self.saved(pending))", namesAccount: false),
                                      exitCode: .temporaryFailure)
                }
                let explanation = diagnosed.keeping(pending)
                // Only the expired session's sentence names the account.
                let problem = AccountProblem(explanation.message, namesAccount: explanation.reason == .unauthorized)
                let code = explanation.exitCode
                let stop: Stop = explanation.reason == .offline
                    ? .offline(host: failure.endpoint.host, port: UInt16(failure.endpoint.port))
                    : failure.isTemporary || code == .temporaryFailure ? .temporary(retryAfter: retryAfter) : .failed
                guard failure.isTemporary, let deadline else {
                    return try finish(tally, store: store, stop: stop, problem: problem, exitCode: code)
                }
                if let retryAfter, retryAfter > deadline - monotonicNow() {
                    return try finish(tally, store: store, stop: stop,
                                      problem: AccountProblem(Self.tooLongAWait(retryAfter, failure, pending: pending), namesAccount: false),
                                      exitCode: code)
                }
                guard wait(after: explanation, failure: failure, retryAfter: retryAfter, backoff: &backoff, until: deadline)
                else {
                    return try finish(tally, store: store, stop: stop, problem: problem, exitCode: code)
                }
            }
        }
    }

    /// The guard's refusal of the outbox's pending writes, recorded for `lib
    /// status`; nil when they pass (and an earlier refusal is forgotten).
    private func refusedByGuard(_ store: AccountStore) throws -> Result? {
        guard !force, let rule = massChangeGuard else {
            try MassChangeRefusal.clear(in: store)
            return nil
        }
        let change = try MassChange(store: store)
        guard rule.refuses(change.destructive, ofTotal: change.books) else {
            try MassChangeRefusal.clear(in: store)
            return nil
        }
        let refusal = MassChangeRefusal(destructive: change.destructive, books: change.books,
                                        allowed: rule.allowed(ofTotal: change.books), byServer: false,
                                        at: workspace.context.now().secondsSince1970)
        return try refused(refusal, tally: Tally(), store: store)
    }

    private func refused(_ refusal: MassChangeRefusal, tally: Tally, store: AccountStore) throws -> Result {
        var refusal = refusal
        refusal.at = workspace.context.now().secondsSince1970
        try refusal.record(in: store)
        var result = try finish(tally, store: store, stop: .refused,
                                problem: AccountProblem(MassChangeWords.refusal(refusal, lib: workspace.lib), namesAccount: false),
                                exitCode: .refused)
        result.refusal = refusal
        return result
    }

    /// `LIB_STRICT_WRITES=1`: every push of this user as with `--strict`.
    static let strictVariable = "LIB_STRICT_WRITES"
    /// `LIB_PROTOCOL=v1`: push one write a request under the whole-version
    /// rule even to a server that speaks protocol v2 (a way around an
    /// intermediary that mishandles v2's batches).
    static let protocolVariable = "LIB_PROTOCOL"

    static func strictByConfiguration(_ context: CommandContext) -> Bool {
        context.environment[strictVariable] == "1"
    }

    /// How long what the store knows of the server's protocol is trusted
    /// (the capability answer's own max-age).
    static let protocolKnownFor: Double = 24 * 3600

    /// The server's protocol as the account's store knows it, and how to keep it.
    private func protocolMemory(_ store: AccountStore) -> HTTPWriteSender.ProtocolMemory {
        let now = workspace.context.now().secondsSince1970
        let stored = try? store.cache.serverDocument(.serverProtocol)
        guard workspace.context.environment[Self.protocolVariable] != "v1" else { return .init(known: .v1Only) }
        let known = stored.flatMap { $0.checkedAt + Self.protocolKnownFor > now && $0.checkedAt <= now
            ? ServerCapabilities(stored: $0.text) : nil }
        return HTTPWriteSender.ProtocolMemory(
            known: known,
            remember: { try? store.cache.saveServerDocument(.serverProtocol, text: $0.stored, at: now) },
            forget: { try? store.cache.forgetServerDocument(.serverProtocol) })
    }

    /// "127.0.0.1 answered 503 Service Unavailable: the server asks to wait
    /// 11 days; giving up." — a Retry-After beyond what is left of the budget.
    static func tooLongAWait(_ seconds: Double, _ failure: TransportFailure, pending: Int) -> String {
        let answered: String
        switch failure.kind {
        case .serverError(let status, let reason, _):
            answered = "\(failure.endpoint.host) answered \(status)\(reason.isEmpty ? "" : " " + reason)"
        case .rateLimited: answered = "\(failure.endpoint.host) answered 429 Too Many Requests"
        default: answered = failure.endpoint.hostAndPort
        }
        let wait = FailureExplanation.wait(seconds: Int(seconds.rounded(.up)))
        return "\(answered): the server asks to wait \(wait); giving up. \(saved(pending))"
    }

    /// Waits before the next attempt: for a route when offline, else for the
    /// backoff's delay, but never past the budget's last attempt (see
    /// `RetryBackoff.nextAttempt`). False when the budget is spent.
    func wait(after explanation: FailureExplanation, failure: TransportFailure, retryAfter: Double?,
              backoff: inout RetryBackoff, until deadline: Double) -> Bool {
        if case .networkManager(let hold) = explanation.reason {
            // A portal, limited connectivity or a connection being made:
            // retrying into it is wasted; try again as soon as it changes.
            switch NetworkManagerWait(progress: progress).wait(
                while: \.holdsRequests, until: deadline, saying: "\(FailureExplanation.report(of: hold)): waiting for it to change") {
            case .released: return true
            case .deadline: return false
            }
        }
        if explanation.reason == .offline {
            let watcher = PathWatcher(host: failure.endpoint.host, port: UInt16(failure.endpoint.port))
            let started = monotonicNow()
            while true {
                let remaining = deadline - monotonicNow()
                if remaining <= 0 { progress.clear(); return false }
                progress.show("You're offline: waiting for a network route to \(failure.endpoint.host)", secondsLeft: remaining)
                // Slices of a second only to refresh the time left on a
                // terminal; each slice listens to netlink from its start.
                let slice = progress.isEnabled ? min(remaining, 1) : remaining
                if case .available = watcher.waitForPath(for: .milliseconds(Int64(slice * 1000))) { break }
            }
            progress.clear()
            // A route that was there all along (the failure only looked like
            // an offline one): back off rather than spin.
            if monotonicNow() - started > 0.05 { return true }
        }
        let delay = backoff.nextDelay(retryAfter: retryAfter)
        guard let resumeAt = RetryBackoff.nextAttempt(now: monotonicNow(), delay: delay, deadline: deadline) else {
            // `--wait 5` waits 5 s: the final attempt may fail before the deadline.
            Self.sleep(deadline - monotonicNow())
            return false
        }
        var headline = explanation.headline
        if headline.hasSuffix(".") { headline.removeLast() }
        while monotonicNow() < resumeAt {
            let left = resumeAt - monotonicNow()
            progress.show("\(headline); retrying in \(Int(left.rounded(.up))) s", secondsLeft: deadline - monotonicNow())
            Self.sleep(progress.isEnabled ? min(left, 1) : left)
        }
        progress.clear()
        return true
    }

    /// The summary and exit code once nothing more will be sent.
    private func finish(_ tally: Tally, store: AccountStore, stop: Stop? = nil, problem: AccountProblem? = nil,
                        exitCode: ExitCode = .success) throws -> Result {
        let counts = try store.outbox.counts()
        var parts: [String] = []
        if tally.applied > 0 {
            parts.append("Pushed \(Wording.writes(tally.applied)) to \(host) as \(name).")
            for write in tally.results {
                guard case .applied(_, let merged?) = write.outcome else { continue }
                parts.append("\(write.path): \(merged.sentence).")
            }
        } else if problem == nil {
            parts.append(tally.conflicts.isEmpty && tally.rejected.isEmpty
                ? "Nothing to push for \(name)." : "Nothing pushed to \(host) as \(name).")
        }
        var attention = Self.attention(tally.conflicts, "conflict", "conflicts", lib: workspace.lib)
        attention += Self.attention(tally.rejected, "rejected write", "rejected writes", lib: workspace.lib)
        let earlier = (counts.conflicts - tally.conflicts.count) + (counts.rejected - tally.rejected.count)
        if earlier > 0 && tally.conflicts.isEmpty && tally.rejected.isEmpty {
            attention.append("\(Wording.count(earlier, "write").capitalizedFirst) of \(name) still \(earlier == 1 ? "waits" : "wait") for you: run `\(workspace.lib) resolve`.")
        }
        var code = exitCode
        if code == .success && counts.conflicts + counts.rejected > 0 { code = .attention }
        return Result(summary: parts.isEmpty ? nil : parts.joined(separator: " "), problem: problem, exitCode: code,
                      attention: attention.isEmpty ? nil : attention.joined(separator: " "),
                      writes: tally.results, counts: counts,
                      answered: tally.applied + tally.conflicts.count + tally.rejected.count, stop: stop)
    }

    /// "1 conflict: books/b-7 — run `lib resolve books/b-7`."
    private static func attention(_ paths: [String], _ singular: String, _ plural: String, lib: String) -> [String] {
        guard !paths.isEmpty else { return [] }
        let unique = paths.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let noun = paths.count == 1 ? singular : plural
        let command = unique.count == 1 ? "\(lib) resolve \(unique[0])" : "\(lib) resolve"
        return ["\(paths.count) \(noun): \(unique.joined(separator: ", ")) — run `\(command)`."]
    }

    private static func saved(_ pending: Int) -> String {
        pending == 1 ? "1 write is saved on this device." : "\(pending) writes are saved on this device."
    }

    private var secondsLeft: Double? { deadline.map { $0 - monotonicNow() } }

    /// How long another push may hold the lock before this one says it waits.
    static let quietLockWait = 0.5

    /// The account's push lock, within this push's time; the waiting line
    /// shows only once another push has held the lock for `quietLockWait`.
    private func acquireLock(_ progress: WaitProgress) throws -> PushLock? {
        let path = workspace.paths.pushLockPath(workspace.name)
        let total = secondsLeft.map { max(0, $0) } ?? lockWait
        if let lock = try PushLock.acquire(path: path, timeout: min(total, Self.quietLockWait)) { return lock }
        guard total > Self.quietLockWait else { return nil }
        progress.show("Waiting for another push of \(workspace.name) to finish", secondsLeft: secondsLeft)
        defer { progress.clear() }
        return try PushLock.acquire(path: path, timeout: secondsLeft.map { max(0, $0) } ?? total - Self.quietLockWait)
    }

    private static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// What the passes of one push did, added up.
    struct Tally {
        var applied = 0
        var conflicts: [String] = []
        var rejected: [String] = []
        var results: [PushWriteResult] = []

        mutating func add(_ report: PushReport) {
            applied += report.applied
            results += report.results
            conflicts += report.conflicts
            rejected += report.rejected
        }
    }
}
