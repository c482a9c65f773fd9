#if canImport(Glibc)
import Glibc
#endif
import LibBase
import Synchronization

/// An HTTP/1.1 server over POSIX sockets: one thread per connection,
/// keep-alive and pipelining, Content-Length bodies only.
public final class HTTPServer: Sendable {
    let limits: HTTPServerLimits
    let handler: @Sendable (HTTPRequest) -> HTTPReply
    let state = Mutex(ServerState())
    /// Wakes what waits for `state` to change: every wait is an event.
    let changes = StateChanges()

    /// Connections beyond the limit get their 503 from a thread of their own,
    /// so that the accept loop never waits on a client; past this many such
    /// threads they get it without waiting for the peer.
    private static let maxOverflowAnswerThreads = 32

    public init(limits: HTTPServerLimits = HTTPServerLimits(), handler: @escaping @Sendable (HTTPRequest) -> HTTPReply) {
        self.limits = limits
        self.handler = handler
    }

    deinit {
        // A server released without stop() (run() holds a reference while it runs).
        state.withLock { state in
            if let fd = state.listenFD { close(fd) }
        }
    }

    /// The bound port, once `bind` has succeeded.
    public var port: Int? { state.withLock { $0.port } }

    /// Binds and listens (SO_REUSEADDR). `host` may be an IPv4 literal, an IPv6
    /// literal (with or without brackets), or "localhost". Port 0 picks a free
    /// port. Returns the bound port.
    public func bind(host: String, port: Int) throws(HTTPServerError) -> Int {
        let address = try SocketAddress.resolve(host: host, port: port)
        let shown = SocketAddress.display(host: host.trimmingBrackets, port: port)
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Self.failure(shown, "socket") }
        SocketIO.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        var storage = address.storage
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, address.length) }
        }
        guard bound == 0 else { throw Self.failure(shown, "bind", closing: fd) }
        guard listen(fd, SOMAXCONN) == 0 else { throw Self.failure(shown, "listen", closing: fd) }
        // Non-blocking, so that a connection reset between poll and accept cannot block the loop.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
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

    /// Accepts connections until `stop()`; each connection is served on its
    /// own thread. Blocks the caller, and returns only once `stop()` has let
    /// in-flight requests finish, so that a process may exit right after it.
    public func run() {
        let listening: Int32? = state.withLock { state in
            guard !state.stopping, !state.accepting, let fd = state.listenFD else { return nil }
            state.accepting = true
            return fd
        }
        guard let fd = listening else { return }
        acceptConnections(on: fd)
        let stopping = state.withLock { state in
            close(fd)
            state.listenFD = nil
            state.accepting = false
            return state.stopping
        }
        changes.notify()
        guard stopping else { return }
        waitUntilStopFinished()
    }

    /// Stops accepting, closes the listening socket, lets in-flight requests
    /// finish for up to `grace` seconds, and closes idle connections. Safe to
    /// call from any thread, more than once.
    public func stop(grace: Double = 2) {
        let first = state.withLock { state in
            if state.stopping { return false }
            state.stopping = true
            if let fd = state.listenFD {
                if state.accepting {
                    // Wakes the accept loop, which then closes the socket itself.
                    _ = shutdown(fd, Int32(SHUT_RDWR))
                } else {
                    close(fd)
                    state.listenFD = nil
                }
            }
            state.shutDownConnections(idleOnly: true)
            return true
        }
        guard first else { return waitUntilStopFinished() }
        waitUntilQuiet(seconds: max(0, grace))
        state.withLock { $0.shutDownConnections(idleOnly: false) }
        // Threads still in a handler finish on their own; only wait briefly.
        waitUntilQuiet(seconds: 1)
        state.withLock { $0.stopFinished = true }
        changes.notify()
    }

    /// Until no connection is open and the accept loop has ended, or `seconds` have passed.
    private func waitUntilQuiet(seconds: Double) {
        let deadline = MonotonicClock.now() + seconds
        while true {
            let ticket = changes.ticket()
            if state.withLock({ $0.connections.isEmpty && !$0.accepting }) { return }
            guard changes.wait(after: ticket, until: deadline) else { return }
        }
    }

    private func waitUntilStopFinished() {
        while true {
            let ticket = changes.ticket()
            if state.withLock({ $0.stopFinished }) { return }
            changes.wait(after: ticket)
        }
    }

    private func acceptConnections(on fd: Int32) {
        while !state.withLock({ $0.stopping }) {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // No timeout: an idle server sleeps here until a client comes,
            // and stop() wakes it by shutting the listening socket down.
            let polled = poll(&ready, 1, -1)
            if polled <= 0 { continue }
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Accept.connection(on: fd, peer: $0, length: &length) }
            }
            if client >= 0 {
                admit(client, remote: SocketAddress.describe(peer, length: length))
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: back off instead of spinning; pending clients wait in the backlog.
                usleep(50_000)
            default:
                if state.withLock({ $0.stopping }) { return }
                usleep(50_000)
            }
        }
    }

    private enum Admission { case serve(Int), overflow(threaded: Bool), peerOverLimit, refuse }

    private func admit(_ fd: Int32, remote: String) {
        let peer = Self.peerAddress(remote)
        SocketIO.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        SocketIO.setTimeout(fd, option: SO_RCVTIMEO, seconds: limits.idleTimeout)
        SocketIO.setTimeout(fd, option: SO_SNDTIMEO, seconds: limits.idleTimeout)
        let admission: Admission = state.withLock { state in
            if state.stopping { return .refuse }
            if state.connectionsPerPeer[peer, default: 0] >= limits.maxConnectionsPerPeer { return .peerOverLimit }
            if state.connections.count - state.evicting >= limits.maxConnections && !state.evictLongestWaitingForHead() {
                guard state.overflowAnswers < Self.maxOverflowAnswerThreads else { return .overflow(threaded: false) }
                state.overflowAnswers += 1
                return .overflow(threaded: true)
            }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.add(id, ServerState.OpenConnection(fd: fd, peer: peer, busy: false))
            return .serve(id)
        }
        switch admission {
        case .serve(let id):
            let connection = Connection(server: self, id: id, fd: fd, remoteAddress: remote)
            if !DetachedThread.start({ connection.serve() }) {
                state.withLock { $0.remove(id) }
                changes.notify()
                refuseOverloaded(fd, linger: false)
            }
        case .overflow(threaded: true):
            if !DetachedThread.start({ [self] in
                refuseOverloaded(fd, linger: true)
                state.withLock { $0.overflowAnswers -= 1 }
            }) {
                state.withLock { $0.overflowAnswers -= 1 }
                refuseOverloaded(fd, linger: false)
            }
        case .overflow(threaded: false):
            refuseOverloaded(fd, linger: false)
        case .peerOverLimit:
            // Without a thread or a wait: this peer is the one crowding the server.
            refuse(fd, status: 429, detail: "this address has \(limits.maxConnectionsPerPeer) connections open already; close some or try again later",
                   linger: false)
        case .refuse:
            close(fd)
        }
    }

    private func refuseOverloaded(_ fd: Int32, linger: Bool) {
        refuse(fd, status: 503, detail: "the server has too many open connections; try again later", linger: linger)
    }

    private func refuse(_ fd: Int32, status: Int, detail: String, linger: Bool) {
        var headers = HTTPHeaders()
        headers.add("Retry-After", RetryAfter(seconds: 1).headerValue)
        let response = HTTPResponse.problem(status: status, detail: detail, headers: headers)
        let bytes = ResponseSerializer.serialize(response, headOnly: false, connection: "close")
        _ = SocketIO.sendAll(fd, bytes[...], flags: linger ? 0 : Int32(MSG_DONTWAIT))
        if linger { SocketIO.drainBeforeClose(fd, seconds: 1) }
        close(fd)
    }

    // MARK: Called by connections

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Records whether a connection is in the middle of a request; returns
    /// whether the server is stopping.
    func setBusy(_ id: Int, _ busy: Bool) -> Bool {
        state.withLock { state in
            state.connections[id]?.busy = busy
            return state.stopping
        }
    }

    /// Records whether a connection is waiting for a request head (and so
    /// may be cut off to make room, see `ServerState.evictLongestWaitingForHead`).
    func setAwaitingHead(_ id: Int, _ awaiting: Bool) {
        state.withLock { state in
            guard state.connections[id]?.evicted == false, state.connections[id]?.awaitingHead != awaiting else { return }
            if awaiting { state.startWaitingForHead(id) } else { state.connections[id]?.awaitingHead = false }
        }
    }

    /// Forgets a connection; only then may its descriptor be closed, so that
    /// stop() never shuts down a reused descriptor number.
    func unregister(_ id: Int) {
        state.withLock { $0.remove(id) }
        changes.notify()
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
