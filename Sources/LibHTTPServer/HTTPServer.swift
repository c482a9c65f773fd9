#if canImport(Glibc)
import Glibc
#endif
import LibBase
import Synchronization

/// An HTTP/1.1 server over POSIX sockets on epoll event loops, one per core:
/// keep-alive and pipelining, Content-Length bodies only. A connection
/// waiting for bytes holds no thread; handlers run on each loop's small
/// thread pool (see `EventLoop`).
public final class HTTPServer: Sendable {
    let limits: HTTPServerLimits
    let handler: @Sendable (HTTPRequest) -> HTTPReply
    /// Answers on the event loop itself what it can answer without waiting;
    /// nil sends the request on to `handler` on a pool thread.
    let answerWithoutWaiting: (@Sendable (HTTPRequest) -> HTTPReply?)?
    let admission: ConnectionAdmission
    private let state = Mutex(Lifecycle())
    /// Read by every loop once per wake-up, written once: no lock.
    private let stopping = Atomic<Bool>(false)
    private let stopGraceMilliseconds = Atomic<Int>(2000)
    /// Set by `drain()`, read by every loop once per answer: no lock.
    private let draining = Atomic<Bool>(false)
    /// Wakes what waits for the loops to end.
    private let changes = EventCount()
    /// Handlers run deep call chains (JSON, SQLite) but 8 MiB a thread is far
    /// more than they need; 2 MiB keeps the threads cheap.
    static let threadStackSize = 2 * 1024 * 1024

    private struct Lifecycle {
        var listenFD: Int32?
        var address: String?
        var port: Int?
        var running = false
        var stopping = false
        var finished = false
        var loops: [EventLoop] = []
        var loopsRunning = 0
    }

    public init(limits: HTTPServerLimits = HTTPServerLimits(),
                answerWithoutWaiting: (@Sendable (HTTPRequest) -> HTTPReply?)? = nil,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPReply) {
        self.limits = limits
        self.handler = handler
        self.answerWithoutWaiting = answerWithoutWaiting
        admission = ConnectionAdmission(limits: limits)
    }

    deinit {
        // A server released without stop() (run() holds a reference while it runs).
        state.withLock { state in
            if let fd = state.listenFD { close(fd) }
        }
    }

    /// The bound port, once `bind` has succeeded.
    public var port: Int? { state.withLock { $0.port } }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Whether `drain()` has been called.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Keeps serving every request, but closes each connection after its
    /// current answer (`Connection: close`), so that keep-alive clients such
    /// as a reverse proxy move to another instance while requests in flight
    /// finish. New connections are still accepted.
    public func drain() {
        draining.store(true, ordering: .relaxed)
    }

    /// Connections open now, on every loop (read for metrics, under the
    /// admission lock that opening and closing take anyway).
    public var openConnections: Int { admission.openCount }
    var stopGrace: Double { Double(stopGraceMilliseconds.load(ordering: .relaxed)) / 1000 }

    /// Binds and listens (SO_REUSEADDR). `host` may be an IPv4 literal, an IPv6
    /// literal (with or without brackets), or "localhost". Port 0 picks a free
    /// port. Returns the bound port.
    public func bind(host: String, port: Int) throws(HTTPServerError) -> Int {
        let address = try SocketAddress.resolve(host: host, port: port)
        let shown = SocketAddress.display(host: host.trimmingBrackets, port: port)
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Self.failure(shown, "socket") }
        SocketIO.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        var storage = address.storage
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, address.length) }
        }
        guard bound == 0 else { throw Self.failure(shown, "bind", closing: fd) }
        guard listen(fd, 4096) == 0 else { throw Self.failure(shown, "listen", closing: fd) }
        guard let boundPort = SocketAddress.localPort(of: fd) else { throw Self.failure(shown, "getsockname", closing: fd) }
        let refusal: HTTPServerError? = state.withLock { state in
            if state.stopping { return .stopped }
            if let existing = state.address { return .alreadyBound(address: existing) }
            state.listenFD = fd
            state.port = boundPort
            state.address = SocketAddress.display(host: host.trimmingBrackets, port: boundPort)
            return nil
        }
        if let refusal {
            close(fd)
            throw refusal
        }
        return boundPort
    }

    /// Serves until `stop()`: one event loop per core, this thread running
    /// one of them. Returns only once `stop()` has let in-flight requests
    /// finish, so that a process may exit right after it.
    public func run() {
        let listening: Int32? = state.withLock { state in
            guard !state.stopping, !state.running, let fd = state.listenFD else { return nil }
            state.running = true
            return fd
        }
        guard let fd = listening else { return }
        let count = limits.eventLoops ?? max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let perLoop = limits.handlerThreads == 0 ? 0 : max(1, (limits.handlerThreads + count - 1) / count)
        var loops: [EventLoop] = []
        for _ in 0..<max(1, count) {
            guard let loop = EventLoop(server: self, listenFD: fd, handlerThreads: perLoop) else { break }
            loops.append(loop)
        }
        state.withLock { state in
            state.loops = loops
            state.loopsRunning = loops.count
        }
        // A stop() that came while the loops were made finds them here.
        if isStopping { loops.forEach { $0.inbox.nudge() } }
        for loop in loops.dropFirst() {
            if NativeThread.start(detached: true, stackSize: Self.threadStackSize, { [self] in
                loop.run()
                loopEnded()
            }) == nil {
                loopEnded()
            }
        }
        if let first = loops.first {
            first.run()
            loopEnded()
        }
        while true {
            let ticket = changes.ticket()
            if state.withLock({ $0.loopsRunning == 0 }) { break }
            changes.wait(after: ticket)
        }
        state.withLock { state in
            close(fd)
            state.listenFD = nil
            state.loops = []
            state.running = false
            state.finished = true
        }
        changes.notify()
    }

    /// The server's other event loops: a full loop looks there for a
    /// waiting connection to cut off.
    func loopsOtherThan(_ loop: EventLoop) -> [EventLoop] {
        state.withLock { $0.loops.filter { $0 !== loop } }
    }

    private func loopEnded() {
        state.withLock { $0.loopsRunning -= 1 }
        changes.notify()
    }

    /// Stops accepting, closes idle connections, lets in-flight requests
    /// finish for up to `grace` seconds, then closes what is left. Safe to
    /// call from any thread, more than once; returns once `run()` has ended.
    public func stop(grace: Double = 2) {
        let (first, running, loops): (Bool, Bool, [EventLoop]) = state.withLock { state in
            if state.stopping { return (false, state.running, []) }
            state.stopping = true
            stopGraceMilliseconds.store(Int(max(0, min(grace, 86_400)) * 1000), ordering: .relaxed)
            stopping.store(true, ordering: .releasing)
            if let fd = state.listenFD {
                if state.running {
                    // Refuses new connections at once; run() closes it at the end.
                    _ = shutdown(fd, Int32(SHUT_RD))
                } else {
                    close(fd)
                    state.listenFD = nil
                }
            }
            if !state.running { state.finished = true }
            return (true, state.running, state.loops)
        }
        if first {
            loops.forEach { $0.inbox.nudge() }
            if !running { changes.notify() }
        }
        while true {
            let ticket = changes.ticket()
            if state.withLock({ $0.finished || !$0.running }) { return }
            changes.wait(after: ticket)
        }
    }

    /// Serves one already connected socket on the calling thread until it
    /// closes (the connection state machine under test or fuzzing).
    func serve(connectedSocket fd: Int32, remoteAddress: String) {
        guard let loop = EventLoop(server: self, listenFD: nil, handlerThreads: 1) else {
            close(fd)
            return
        }
        loop.adopt(fd, remoteAddress: remoteAddress)
        loop.run()
    }

    /// `ADDRESS` of `ADDRESS:PORT` (`[ADDRESS]` of `[ADDRESS]:PORT`).
    static func peerAddress(_ remote: String) -> String {
        guard let colon = remote.lastIndex(of: ":") else { return remote }
        return String(remote[..<colon])
    }

    private static func failure(_ address: String, _ operation: String, closing fd: Int32? = nil) -> HTTPServerError {
        let code = errno
        if let fd { close(fd) }
        return .systemCallFailed(address: address, operation: operation, errno: code, reason: SocketIO.errorText(code))
    }
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
