import LibBase
import LibCLI
import LibNet

/// The pulls of `lib push --watch`, which keep the offline library fresh:
/// when the watch starts, right after each push that sent something (what
/// others changed meanwhile), after the server comes back (a failed pull is
/// retried with backoff, and at once when a route appears), and while idle
/// every `LIB_WATCH_PULL_INTERVAL` seconds (15 minutes by default; 0: only
/// after pushes), or, to a server that holds them, as soon as a waiting
/// change-feed request answers (FeedWatch; not with the interval 0). With
/// `LIB_METERED=defer` no pull starts while
/// NetworkManager says the connection is metered.
///
/// Pulls are quiet: the watcher's lines are its pushes and problems. A pull
/// that fails for a reason that heals by itself (offline, the server down)
/// or that needs a sign-in says nothing either (the push says it when writes
/// wait); any other problem is said once. Offline, the next pull waits for a
/// route event, not a timer.
extension PushWatch {
    static let defaultPullInterval = 900.0
    static let pullIntervalVariable = "LIB_WATCH_PULL_INTERVAL"

    static func pullInterval(_ environment: [String: String]) -> Double {
        guard let text = environment[pullIntervalVariable], !text.isEmpty else { return defaultPullInterval }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else { return defaultPullInterval }
        return seconds
    }

    func pull(_ account: WatchedAccount) {
        let now = monotonicNow()
        account.pullDue = nil
        guard !account.needsLogin else { return }
        if let held = account.pullsHeldUntil, now < held {
            // After a budget stop no push, feed answer or route brings the next pull sooner.
            account.pullDue = held
            return
        }
        if defersWhenMetered, networkManagerStatus()?.metered == true {
            // Owed: when NetworkManager says it is no longer metered (or the next push, or the interval).
            account.pullFailed = true
            scheduleIdlePull(account, from: now)
            return
        }
        do {
            // A pull that stops for a write saved meanwhile goes on after the
            // push that sends it (a push that sent something asks for a pull).
            _ = try Pull.pull(account.workspace, forWatcher: true, stopRequested: { [events] in events.stopRequested })
            account.pullFailed = false
            account.pullBackoff = RetryBackoff()
            account.lastPullProblem = nil
            account.budgetStops = 0
            account.pullsHeldUntil = nil
            scheduleIdlePull(account, from: now)
            // LIB_WATCH_PULL_INTERVAL=0 (pulls only after pushes) holds no feed request either.
            if pullInterval > 0, let cursor = try? account.store.mirror(of: Pull.collection.description).cursor(), let token = try? account.workspace.token() {
                feeds.ask(account.name, cursor: cursor, api: account.workspace.api(token: token, timeout: 90))
            }
        } catch let failure as CommandFailure where failure.reason == AccountWorkspace.pullBudgetReason {
            holdPulls(account, after: failure.message, from: now)
        } catch {
            let (message, code, _) = Pull.explanation(of: error, account.workspace)
            if code != .temporaryFailure && code != .authentication && message != account.lastPullProblem { sayProblem(message) }
            account.lastPullProblem = message
            switch code {
            case .temporaryFailure:
                account.pullFailed = true
                let origin = account.workspace.account.origin
                if events.hasRouteEvents, PathProbe.status(for: origin.host, port: UInt16(clamping: origin.port)) == .unavailable {
                    // routesChanged() starts it again when a route appears.
                    return
                }
                account.pullBackoff.first = 0.25
                account.pullBackoff.limit = 30
                account.pullDue = now + account.pullBackoff.nextDelay(retryAfter: nil)
            case .authentication:
                // The push says it, and `lib login` lets it try again (reloadAccounts).
                account.pullFailed = true
            default:
                scheduleIdlePull(account, from: now)
            }
        }
    }

    /// Pulls held after budget stops never wait longer than this.
    static let longestPullHold = 4 * 3600.0

    /// A pull stopped at its budget (a feed or a listing that would not
    /// end): retrying at once would read the same again, so the next pull
    /// waits the idle interval, doubling with each stop in a row up to 4
    /// hours, and the stop is said once until a pull succeeds.
    private func holdPulls(_ account: WatchedAccount, after message: String, from now: Double) {
        account.budgetStops += 1
        let base = pullInterval > 0 ? pullInterval : Self.defaultPullInterval
        let hold = min(base * Double(1 << min(account.budgetStops - 1, 30)), max(base, Self.longestPullHold))
        account.pullsHeldUntil = now + hold
        account.pullDue = now + hold
        account.pullFailed = false
        if account.budgetStops == 1 {
            sayProblem(message + " The watcher pulls again in \(AgeWording.duration(Int(hold.rounded()))), later each time this happens again.")
        }
        account.lastPullProblem = message
    }

    private func scheduleIdlePull(_ account: WatchedAccount, from now: Double) {
        account.pullDue = pullInterval > 0 ? now + pullInterval : nil
    }
}
