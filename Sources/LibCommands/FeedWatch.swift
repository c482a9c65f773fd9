#if canImport(Glibc)
import Glibc
#endif
import LibBase
import LibClient
import LibJSON
import LibNet

/// The waiting change-feed requests of `push --watch` and `pull --watch`:
/// one per watched account, each on a thread of its own, so that a change
/// made elsewhere reaches this device's offline library as soon as it
/// commits instead of at the next idle pull. The thread asks
/// `GET /v1/changes?since=CURSOR&wait=S&limit=1` from the cursor of the
/// account's last pull; the server holds it until something changes. When
/// it answers with a change (or says the cursor is gone), the account's
/// name goes down a pipe in the watcher's poll set and the watcher pulls;
/// after the pull it hands over the new cursor. A server that does not say
/// `changes.max_wait` in GET /v2/capabilities is not asked: its idle pulls
/// go on as before. Failures (offline, the server restarting) are retried
/// after 0.25 s, doubling to 2 s for the first minute of an outage (a server
/// that comes back is seen within 2 s), then to 30 s.
final class FeedWatch {
    /// The read end of the pipe: a line with an account's name per answer.
    let descriptor: Int32
    private let notify: Int32
    private var waiters: [String: FeedWaiter] = [:]

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw CommandFailureError.io("Cannot watch the change feed: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        descriptor = ends[0]
        notify = ends[1]
    }

    deinit {
        for waiter in waiters.values { waiter.stop() }
        close(descriptor)
        close(notify)
    }

    /// After a pull of `account`: wait for what changes after `cursor`.
    func ask(_ account: String, cursor: String, api: @autoclosure () -> ServerAPI) {
        if let waiter = waiters[account] {
            waiter.ask(cursor)
            return
        }
        let waiter = FeedWaiter(account: account, api: api(), notify: notify)
        waiters[account] = waiter
        waiter.ask(cursor)
        waiter.start()
    }

    /// The account signed out (or signed in again with another token).
    func forget(_ account: String) {
        waiters.removeValue(forKey: account)?.stop()
    }

    /// The accounts whose feed answered since the last call.
    func answered() -> Set<String> {
        var names = Set<String>()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text: [UInt8] = []
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            text += buffer[0..<count]
        }
        for line in text.split(separator: UInt8(ascii: "\n")) { names.insert(String(decoding: line, as: UTF8.self)) }
        return names
    }
}

/// One account's waiting feed request, on its own thread.
final class FeedWaiter: @unchecked Sendable {
    // @unchecked: `cursor`, `asked` and `stopped` are only touched under `mutex`;
    // `api` only by the waiter's thread once it has started.
    private let account: String
    private let api: ServerAPI
    private let notify: Int32
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var cursor = ""
    private var asked = false
    private var stopped = false

    /// The longest a request asks to be held (below the server's 60 s and
    /// common proxies' idle timeouts).
    static let preferredWait = 50

    init(account: String, api: ServerAPI, notify: Int32) {
        self.account = account
        self.api = api
        self.notify = notify
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// Runs on a detached thread of its own (which keeps the waiter alive).
    func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let waiter = Unmanaged<FeedWaiter>.fromOpaque(context).takeRetainedValue()
            waiter.run()
            return nil
        }, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<FeedWaiter>.fromOpaque(context).release()
        }
    }

    func ask(_ cursor: String) {
        pthread_mutex_lock(mutex)
        self.cursor = cursor
        asked = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The cursor to wait from, once asked; nil once stopped.
    private func nextCursor() -> String? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !asked && !stopped { pthread_cond_wait(condition, mutex) }
        return stopped ? nil : cursor
    }

    private func answeredWithChanges() {
        pthread_mutex_lock(mutex)
        asked = false
        pthread_mutex_unlock(mutex)
        let line = Array((account + "\n").utf8)
        _ = line.withUnsafeBytes { write(notify, $0.baseAddress, $0.count) }
    }

    private var isStopped: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return stopped
    }

    private enum Outcome { case changes, nothing, failed, unsupported }

    private func run() {
        var wait: Int?
        var backoff = 0.25
        var outageStarted: Double?
        while let cursor = nextCursor() {
            let outcome: Outcome
            let asked = MonotonicClock.now()
            if let wait {
                outcome = request(from: cursor, wait: wait)
            } else {
                switch serverWait() {
                case .some(let seconds?):
                    wait = seconds
                    continue
                case .some(nil):
                    outcome = .unsupported
                case nil:
                    outcome = .failed
                }
            }
            switch outcome {
            case .changes:
                (backoff, outageStarted) = (0.25, nil)
                answeredWithChanges()
            case .nothing:
                (backoff, outageStarted) = (0.25, nil)
                let pause = EarlyEmptyPage.pause(waited: MonotonicClock.now() - asked, asked: wait ?? 0,
                                                 random: Double.random(in: 0...1))
                if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
            case .unsupported:
                // Polled as before, by the watcher's idle pulls.
                return
            case .failed:
                if isStopped { return }
                usleep(useconds_t(backoff * 1_000_000))
                let now = MonotonicClock.now()
                outageStarted = outageStarted ?? now
                backoff = min(backoff * 2, now - (outageStarted ?? now) < 60 ? 2 : 30)
            }
        }
    }

    /// The server's `changes.max_wait`: nil when unreachable, .some(nil)
    /// when it does not hold feed requests.
    private func serverWait() -> Int?? {
        do {
            return .some(try ChangeFeedReader(api: api).longestWait().map { min(Self.preferredWait, $0) })
        } catch {
            return nil
        }
    }

    private func request(from cursor: String, wait: Int) -> Outcome {
        guard let changed = try? ChangeFeedReader(api: api).waitForChange(since: cursor, wait: wait) else { return .failed }
        return changed ? .changes : .nothing
    }
}
