#if canImport(Glibc)
import Glibc
#endif
import CEventLoop
import LibBase

/// One thread's share of the server: an epoll set holding the listening
/// socket (shared with the other loops, EPOLLEXCLUSIVE) and the connections
/// it accepted, which it alone reads, times out and writes. What to do with
/// their bytes each connection's `HTTPConnectionMachine` says; who gets a
/// connection, `LoopAdmission`. Handlers run on the loop's `HandlerPool`;
/// their replies come back through its `LoopInbox`. Idle, it sleeps in
/// epoll_wait with no timeout; with connections open, until the soonest of
/// their deadlines.
final class EventLoop: @unchecked Sendable {
    // @unchecked: everything but `inbox`, `pool` and `admission`'s published
    // wait is touched only by the loop's own thread.
    private static let listenerToken: UInt64 = 0
    private static let inboxToken: UInt64 = 1

    private let limits: HTTPServerLimits
    let admission: LoopAdmission
    private let server: HTTPServer
    private let epollFD: Int32
    let inbox: LoopInbox
    private let pool = HandlerPool()
    /// No pool threads: handlers run on the loop itself (a server whose
    /// handlers never wait).
    private let runsHandlersInline: Bool
    private var listenFD: Int32?
    private var listening = false
    private var connections: [UInt64: LoopConnection] = [:]
    private var nextID: UInt64 = 2
    private var deadlines = DeadlineHeap()
    private var now: UInt64 = 0
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private var jobs: [HandlerPool.Job] = []
    /// Set once the loop has seen the server stop: when it closes what is left.
    private var stopDeadline: UInt64?
    /// Out of descriptors: accepting resumes then.
    private var acceptPausedUntil: UInt64?
    /// A loop for one adopted connection ends when it closes.
    private let endsWhenEmpty: Bool

    init?(server: HTTPServer, listenFD: Int32?, handlerThreads: Int) {
        self.server = server
        limits = server.limits
        admission = LoopAdmission(counts: server.admission, limits: server.limits)
        let epoll = ceventloop_create()
        guard epoll >= 0, let inbox = LoopInbox() else {
            if epoll >= 0 { Glibc.close(epoll) }
            return nil
        }
        epollFD = epoll
        self.inbox = inbox
        self.listenFD = listenFD
        endsWhenEmpty = listenFD == nil
        guard ceventloop_add_input(epoll, inbox.eventFD, Self.inboxToken) == 0 else {
            Glibc.close(epoll)
            return nil
        }
        if let listenFD {
            guard ceventloop_add_listener(epoll, listenFD, Self.listenerToken) == 0 else {
                Glibc.close(epoll)
                return nil
            }
            listening = true
        }
        runsHandlersInline = handlerThreads == 0
        let handler = server.handler
        guard runsHandlersInline || pool.start(threads: handlerThreads, work: { [inbox] job in
            inbox.post(LoopInbox.Reply(connection: job.connection, reply: handler(job.request)))
        }) > 0 else {
            Glibc.close(epoll)
            return nil
        }
    }

    /// Serves until the server stops (or, for an adopted connection, until it closes).
    func run() {
        var events = [ceventloop_event](repeating: ceventloop_event(), count: 256)
        now = ceventloop_now_ns()
        while !shouldEnd() {
            let timeout = nextTimeout()
            let count = events.withUnsafeMutableBufferPointer {
                ceventloop_wait(epollFD, $0.baseAddress, Int32($0.count), timeout)
            }
            now = ceventloop_now_ns()
            if count < 0 && count != -EINTR { break }
            for index in 0..<max(0, Int(count)) { handle(events[index]) }
            expireDeadlines()
            resumeAcceptingIfDue()
            submitJobs()
            admission.publishOldestWaiting(on: self)
        }
        for connection in Array(connections.values) { close(connection) }
        for handed in inbox.take().connections { Glibc.close(handed.fd) }
        pool.close()
        Glibc.close(epollFD)
    }

    /// Serves one connected socket (tests and fuzzing: the whole loop on any byte stream).
    func adopt(_ fd: Int32, remoteAddress: String) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        now = ceventloop_now_ns()
        register(fd, remoteAddress: remoteAddress, peer: HTTPServer.peerAddress(remoteAddress), counted: false)
    }

    // MARK: What admission needs

    var connectionCount: Int { connections.count }
    var otherLoops: [EventLoop] { server.loopsOtherThan(self) }
    func connection(_ id: UInt64) -> LoopConnection? { connections[id] }

    /// Reads what may wait in the socket now, before the connection is judged by its wait.
    func readWaitingBytes(_ connection: LoopConnection) {
        connection.mayHaveBytes = true
        drive(connection)
    }

    // MARK: Events

    private func handle(_ event: ceventloop_event) {
        switch event.token {
        case Self.listenerToken:
            acceptConnections()
        case Self.inboxToken:
            let delivery = inbox.take()
            for handed in delivery.connections { admit(handed.fd, remoteAddress: handed.remoteAddress, arrival: handed.arrival) }
            for reply in delivery.replies { deliver(reply) }
        default:
            guard let connection = connections[event.token] else { return }
            if event.writable != 0 && connection.outputSent < connection.output.count {
                flush(connection)
            }
            if event.readable != 0 { connection.mayHaveBytes = true }
            if event.input_ended != 0 {
                connection.inputEnded = true
                // A waiting answer whose client has gone lets go of its place now, not when its wait ends.
                connection.pending?.clientLeft()
            }
            if event.readable != 0 && !connection.isClosed { drive(connection) }
        }
    }

    /// Answers here what needs no waiting (a handing-off costs two thread
    /// wake-ups, more than a read from SQLite); the pool gets the rest.
    private func submitJobs() {
        var waiting: [HandlerPool.Job] = []
        // An answer may let a pipelined request through, which adds a job.
        while !jobs.isEmpty {
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            for job in batch {
                if runsHandlersInline {
                    deliver(LoopInbox.Reply(connection: job.connection, reply: server.handler(job.request)))
                } else if let reply = server.answerWithoutWaiting?(job.request) {
                    deliver(LoopInbox.Reply(connection: job.connection, reply: reply))
                } else {
                    waiting.append(job)
                }
            }
        }
        pool.submit(waiting)
    }

    private var isStopping: Bool { stopDeadline != nil || server.isStopping }
    /// No connection is kept alive after its answer: stopping, or draining.
    private var closesAfterAnswer: Bool { isStopping || server.isDraining }

    private func shouldEnd() -> Bool {
        if endsWhenEmpty && connections.isEmpty { return true }
        if stopDeadline == nil && server.isStopping { beginStop() }
        guard let stopDeadline else { return false }
        if connections.isEmpty { return true }
        if now >= stopDeadline {
            for connection in Array(connections.values) { close(connection) }
            return true
        }
        return false
    }

    /// Stops accepting, closes idle connections, and answers waiting ones
    /// at once; busy ones finish within the grace period.
    private func beginStop() {
        stopDeadline = now + Self.nanoseconds(server.stopGrace)
        stopListening()
        for connection in Array(connections.values) {
            if connection.machine.isIdle, connection.output.isEmpty {
                close(connection)
            } else if let pending = connection.pending {
                pending.complete(.respond(pending.answerAtStop))
            }
        }
    }

    private func stopListening() {
        guard listening, let listenFD else { return }
        _ = ceventloop_remove(epollFD, listenFD)
        listening = false
    }

    private func nextTimeout() -> Int32 {
        var soonest = deadlines.soonest
        for candidate in [stopDeadline, acceptPausedUntil] {
            if let candidate { soonest = min(soonest ?? candidate, candidate) }
        }
        guard let soonest else { return -1 }
        if soonest <= now { return 0 }
        return Int32(clamping: (soonest - now + 999_999) / 1_000_000)
    }

    // MARK: Accepting

    private func acceptConnections() {
        guard let listenFD, listening else { return }
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = UInt32(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) { ceventloop_accept(listenFD, $0, &length) }
            if fd < 0 {
                let code = errno
                switch code {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EAGAIN, EWOULDBLOCK: return
                case _ where (code == EMFILE || code == ENFILE) && admission.cutOffLongestWaitingForDescriptor(on: self):
                    // A slow client's descriptor is a new client's now.
                    continue
                default:
                    // Out of memory, or of descriptors with no slow client to
                    // cut off: pause instead of spinning; pending clients wait in the backlog.
                    stopListening()
                    acceptPausedUntil = now + 50_000_000
                    return
                }
            }
            admit(fd, remoteAddress: SocketAddress.describe(storage, length: socklen_t(length)))
        }
    }

    private func resumeAcceptingIfDue() {
        guard let due = acceptPausedUntil, due <= now else { return }
        acceptPausedUntil = nil
        guard stopDeadline == nil, let listenFD, ceventloop_add_listener(epollFD, listenFD, Self.listenerToken) == 0 else { return }
        listening = true
    }

    private func admit(_ fd: Int32, remoteAddress: String, arrival: LoopInbox.Arrival = .accepted) {
        guard stopDeadline == nil else {
            Glibc.close(fd)
            return
        }
        let peer = HTTPServer.peerAddress(remoteAddress)
        SocketIO.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        switch admission.decide(peer: peer, arrival: arrival, on: self) {
        case .serve:
            register(fd, remoteAddress: remoteAddress, peer: peer, counted: true)
        case .answerFull:
            guard let connection = register(fd, remoteAddress: remoteAddress, peer: peer, counted: false) else { return }
            let answer = LoopAdmission.refusal(status: 503, detail: LoopAdmission.fullDetail)
            perform(connection.machine.refuse(answer), on: connection)
        case .refuse(let status, let detail):
            let bytes = LoopAdmission.refusal(status: status, detail: detail)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            Glibc.close(fd)
        case .handOver(let loop, let arrival):
            loop.inbox.hand(LoopInbox.HandedConnection(fd: fd, remoteAddress: remoteAddress, arrival: arrival))
        }
    }

    @discardableResult
    private func register(_ fd: Int32, remoteAddress: String, peer: String, counted: Bool) -> LoopConnection? {
        let connection = LoopConnection(id: nextID, fd: fd, peer: peer, countsAgainstLimit: counted,
                                        machine: HTTPConnectionMachine(limits: limits, remoteAddress: remoteAddress))
        nextID += 1
        connections[connection.id] = connection
        guard ceventloop_add_stream(epollFD, fd, connection.id) == 0 else {
            close(connection)
            return nil
        }
        perform(connection.machine.start(), on: connection)
        return connection
    }

    // MARK: Carrying out what a connection's machine says

    private func perform(_ actions: [HTTPConnectionMachine.Action], on connection: LoopConnection) {
        for action in actions {
            guard !connection.isClosed else { return }
            switch action {
            case .setDeadline(let seconds):
                setDeadline(connection, seconds: seconds)
            case .clearDeadline:
                connection.deadline = 0
            case .startWaiting:
                admission.startWaiting(connection, since: now, on: self)
            case .stopWaiting:
                connection.waitTicket = 0
            case .dispatch(let request):
                jobs.append(HandlerPool.Job(connection: connection.id, request: request))
            case .send(let bytes):
                if connection.output.isEmpty { connection.output = bytes } else { connection.output.append(contentsOf: bytes) }
                flush(connection)
            case .shutDownSending:
                _ = shutdown(connection.fd, Int32(SHUT_WR))
                // Waiting for the peer's end of file: a full server may cut it off.
                if connection.countsAgainstLimit { admission.startWaiting(connection, since: now, on: self) }
            case .close:
                close(connection)
            }
        }
    }

    /// Reads while the connection's machine wants bytes, until the socket has none.
    private func drive(_ connection: LoopConnection) {
        while !connection.isClosed && connection.machine.wantsBytes {
            switch connection.receive(into: &scratch) {
            case .bytes(let count):
                perform(connection.machine.received(scratch[0..<count]), on: connection)
            case .wouldBlock:
                return
            case .endOfFile:
                perform(connection.machine.receivedEndOfFile(), on: connection)
            case .failed:
                return close(connection)
            }
        }
    }

    // MARK: Answering

    private func deliver(_ posted: LoopInbox.Reply) {
        guard let connection = connections[posted.connection], connection.machine.isAwaitingAnswer else { return }
        if case .later(let pending) = posted.reply {
            connection.pending = pending
            pending.attach(to: inbox, connection: connection.id)
            if stopDeadline != nil { pending.complete(.respond(pending.answerAtStop)) }
            if connection.inputEnded { pending.clientLeft() }
            return
        }
        connection.pending = nil
        perform(connection.machine.answer(posted.reply, serverStopping: closesAfterAnswer, date: date.now()), on: connection)
        drive(connection)
    }

    /// Sends what it can of the output; once all is sent, moves on as the machine says.
    private func flush(_ connection: LoopConnection) {
        while connection.outputSent < connection.output.count {
            let sent = connection.output.withUnsafeBytes { bytes in
                Glibc.send(connection.fd, bytes.baseAddress! + connection.outputSent, bytes.count - connection.outputSent,
                           Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                connection.outputSent += sent
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return perform(connection.machine.sendBlocked(), on: connection)
            }
            return close(connection)
        }
        connection.output.removeAll(keepingCapacity: connection.output.capacity <= 16 * 1024)
        connection.outputSent = 0
        // An interim 100 Continue: the body is still to come, read as before.
        guard connection.machine.isSendingAnswer else { return }
        perform(connection.machine.allSent(serverStopping: closesAfterAnswer), on: connection)
        drive(connection)
    }

    /// `placeGiven`: its place among the open connections went to another.
    func close(_ connection: LoopConnection, placeGiven: Bool = false) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        connection.waitTicket = 0
        connection.pending = nil
        Glibc.close(connection.fd)
        connections[connection.id] = nil
        admission.closed(connection, placeGiven: placeGiven)
    }

    /// The `Date` value, formatted once a second by this loop.
    private var date = DateCache()

    // MARK: Deadlines

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, min(seconds, 86_400 * 365)) * 1e9)
    }

    private func setDeadline(_ connection: LoopConnection, seconds: Double) {
        deadlines.schedule(connection, due: now + Self.nanoseconds(seconds))
    }

    private func expireDeadlines() {
        while let connection = deadlines.nextExpired(now: now, in: connections) {
            perform(connection.machine.deadlinePassed(), on: connection)
        }
    }
}
