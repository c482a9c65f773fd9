#if canImport(Glibc)
import Glibc
#endif
import CEventLoop
import LibBase
import Synchronization

/// One thread's share of the server: an epoll set holding the listening
/// socket (shared with the other loops, EPOLLEXCLUSIVE) and the connections
/// it accepted, which it alone reads, parses, times out and writes. Handlers
/// run on the loop's `HandlerPool`; their replies come back through its
/// `LoopInbox`. Idle, it sleeps in epoll_wait with no timeout; with
/// connections open, until the soonest of their deadlines.
final class EventLoop: @unchecked Sendable {
    // @unchecked: everything but `inbox` and `pool` is touched only by the loop's own thread.
    private static let listenerToken: UInt64 = 0
    private static let inboxToken: UInt64 = 1
    /// Connections over the limit that are told 503 on this loop at once.
    private static let maxOverflowAnswers = 32

    private let limits: HTTPServerLimits
    private let admission: ConnectionAdmission
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
    private var waiting = WaitingQueue()
    private var nextTicket: UInt64 = 0
    /// When this loop's longest-waiting connection began to wait (0: none),
    /// as of the loop's last turn: where a full loop looks for the
    /// connection that has waited longest on any loop.
    private let publishedOldestWaiting = Atomic<UInt64>(0)
    private var now: UInt64 = 0
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private var jobs: [HandlerPool.Job] = []
    private var overflowAnswers = 0
    /// Set once the loop has seen the server stop: when it closes what is left.
    private var stopDeadline: UInt64?
    /// Out of descriptors: accepting resumes then.
    private var acceptPausedUntil: UInt64?
    /// A loop for one adopted connection ends when it closes.
    private let endsWhenEmpty: Bool

    private var headSeconds: Double { min(limits.headerTimeout, limits.idleTimeout) }

    init?(server: HTTPServer, listenFD: Int32?, handlerThreads: Int) {
        self.server = server
        limits = server.limits
        admission = server.admission
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
            publishedOldestWaiting.store(waiting.oldest(isLive: isLive)?.since ?? 0, ordering: .relaxed)
        }
        for connection in Array(connections.values) { close(connection) }
        for handed in inbox.take().connections { Glibc.close(handed.fd) }
        pool.close()
        Glibc.close(epollFD)
    }

    /// Serves one connected socket (tests and fuzzing: the connection state
    /// machine on any byte stream).
    func adopt(_ fd: Int32, remoteAddress: String) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        now = ceventloop_now_ns()
        register(fd, remoteAddress: remoteAddress, peer: HTTPServer.peerAddress(remoteAddress), counted: false)
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

    private func submitJobs() {
        guard !jobs.isEmpty else { return }
        if runsHandlersInline {
            // An answer may let a pipelined request through, which adds a job.
            while !jobs.isEmpty {
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                for job in batch { deliver(LoopInbox.Reply(connection: job.connection, reply: server.handler(job.request))) }
            }
            return
        }
        pool.submit(jobs)
        jobs.removeAll(keepingCapacity: true)
    }

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
            if case .awaitingHead(started: false) = connection.phase, connection.output.isEmpty, connection.unconsumed == 0 {
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
                case _ where (code == EMFILE || code == ENFILE) && cutOffLongestWaitingForDescriptor():
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
        var verdict = admission.admit(peer)
        if verdict == .full {
            if let (loop, handed) = loopToMakeRoom(for: arrival) {
                loop.inbox.hand(LoopInbox.HandedConnection(fd: fd, remoteAddress: remoteAddress, arrival: handed))
                return
            }
            verdict = cutOffLongestWaiting(makingRoomFor: peer)
        }
        switch verdict {
        case .admitted:
            register(fd, remoteAddress: remoteAddress, peer: peer, counted: true)
        case .peerOverLimit:
            // Without a wait: this peer is the one crowding the server.
            refuse(fd, status: 429, detail: "this address has \(limits.maxConnectionsPerPeer) connections open already; close some or try again later")
        case .full:
            let detail = "the server has too many open connections; try again later"
            guard overflowAnswers < Self.maxOverflowAnswers else { return refuse(fd, status: 503, detail: detail) }
            // Told 503 like any answer, then drained before the close, so that the peer reads it.
            overflowAnswers += 1
            guard let connection = register(fd, remoteAddress: remoteAddress, peer: peer, counted: false) else { return }
            send(Self.refusal(status: 503, detail: detail), on: connection, then: .closeGracefully)
        }
    }

    @discardableResult
    private func register(_ fd: Int32, remoteAddress: String, peer: String, counted: Bool) -> LoopConnection? {
        let connection = LoopConnection(id: nextID, fd: fd, remoteAddress: remoteAddress, peer: peer, countsAgainstLimit: counted)
        nextID += 1
        connections[connection.id] = connection
        guard ceventloop_add_stream(epollFD, fd, connection.id) == 0 else {
            close(connection)
            return nil
        }
        startAwaitingHead(connection)
        connection.isFresh = false
        return connection
    }

    private static func refusal(status: Int, detail: String) -> [UInt8] {
        var headers = HTTPHeaders()
        headers.add("Retry-After", RetryAfter(seconds: 1).headerValue)
        let response = HTTPResponse.problem(status: status, detail: detail, headers: headers)
        return ResponseSerializer.serialize(response, headOnly: false, connection: "close")
    }

    private func refuse(_ fd: Int32, status: Int, detail: String) {
        let bytes = Self.refusal(status: status, detail: detail)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        Glibc.close(fd)
    }

    /// A full server makes room by cutting off the connection that has
    /// waited longest for the bytes of a request, on any loop: peers that
    /// open connections and never finish a request (from many addresses,
    /// each under its per-peer cap) then cannot keep ordinary clients out,
    /// and a client that has just connected is not the one cut off. When
    /// that connection is another loop's, the new one is handed to that
    /// loop, which cuts off one of its own that waited longer than this
    /// loop's longest, or else hands the new one back (the other loops'
    /// longest waits are known as of their last turn); at most three hops.
    /// Nil: this loop makes the room.
    private func loopToMakeRoom(for arrival: LoopInbox.Arrival) -> (EventLoop, LoopInbox.Arrival)? {
        let ownLongest = waiting.oldest(isLive: isLive)?.since ?? .max
        switch arrival {
        case .accepted:
            var longest = ownLongest
            var found: EventLoop?
            for other in server.loopsOtherThan(self) {
                let since = other.publishedOldestWaiting.load(ordering: .relaxed)
                if since != 0 && since < longest {
                    longest = since
                    found = other
                }
            }
            return found.map { ($0, .handedOver(by: self, longestThere: ownLongest)) }
        case .handedOver(let loop, let longestThere):
            return ownLongest < longestThere || longestThere == .max ? nil : (loop, .handedBack(by: self))
        case .handedBack(let loop):
            // Its own have gone meanwhile: the other loop cuts off its own.
            return ownLongest != .max ? nil : (loop, .handedOver(by: self, longestThere: .max))
        }
    }

    /// Cuts off this loop's longest-waiting connection and gives its place
    /// to a new one from `peer` (at once: another loop cannot take it
    /// between the two).
    private func cutOffLongestWaiting(makingRoomFor peer: String) -> ConnectionAdmission.Verdict {
        while let entry = waiting.oldest(isLive: isLive), let connection = connections[entry.connection] {
            // Its bytes may be in the socket already, the loop not yet at its
            // event (a client that just connected, under a flood): read them
            // first; a request they finish is not cut off.
            connection.mayHaveBytes = true
            drive(connection)
            guard isLive(entry) else { continue }
            guard connection.countsAgainstLimit else {
                waiting.removeOldest()
                continue
            }
            let verdict = admission.transfer(from: connection.peer, to: peer)
            if verdict == .admitted {
                waiting.removeOldest()
                close(connection, placeGiven: true)
            }
            return verdict
        }
        // Those it read from may have ended and let go of their places.
        return admission.admit(peer)
    }

    /// Out of descriptors: closes this loop's connection that has waited
    /// longest for the bytes of a request (as a full server does), so that
    /// a crowd of slow clients cannot stop the server from accepting. False
    /// when none waits.
    private func cutOffLongestWaitingForDescriptor() -> Bool {
        while let entry = waiting.oldest(isLive: isLive), let connection = connections[entry.connection] {
            connection.mayHaveBytes = true
            drive(connection)
            guard isLive(entry) else { continue }
            waiting.removeOldest()
            close(connection)
            return true
        }
        return false
    }

    private func isLive(_ entry: WaitingQueue.Entry) -> Bool {
        connections[entry.connection]?.waitTicket == entry.ticket
    }

    private func markWaiting(_ connection: LoopConnection) {
        nextTicket += 1
        connection.waitTicket = nextTicket
        waiting.append(WaitingQueue.Entry(connection: connection.id, ticket: nextTicket, since: now), liveCount: connections.count, isLive: isLive)
    }

    // MARK: Reading and parsing

    private func startAwaitingHead(_ connection: LoopConnection) {
        let started = connection.unconsumed > 0
        connection.phase = .awaitingHead(started: started)
        connection.isBusy = started
        // Before the first byte: a new connection gets the header timeout, a
        // kept-alive one the idle timeout.
        let seconds = started || connection.isFresh ? headSeconds : limits.idleTimeout
        setDeadline(connection, seconds: seconds)
        markWaiting(connection)
    }

    private enum Received { case bytes, wouldBlock, endOfFile, failed }

    private func receive(_ connection: LoopConnection, keeping: Bool) -> Received {
        if connection.peerClosed { return .endOfFile }
        guard connection.mayHaveBytes else { return .wouldBlock }
        while true {
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if keeping { connection.buffer.append(contentsOf: scratch[0..<count]) }
                // Less than asked for: the socket is empty now, and bytes that come later raise a new edge.
                if count < scratch.count && !connection.inputEnded { connection.mayHaveBytes = false }
                return .bytes
            }
            if count == 0 {
                connection.peerClosed = true
                return .endOfFile
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                connection.mayHaveBytes = false
                return .wouldBlock
            default: return .failed
            }
        }
    }

    /// Reads and handles what the connection's phase wants, until it must
    /// wait (for bytes, the handler or the peer to take an answer).
    private func drive(_ connection: LoopConnection) {
        while !connection.isClosed {
            switch connection.phase {
            case .awaitingHead(let started):
                if progressHead(connection) { continue }
                switch receive(connection, keeping: true) {
                case .bytes:
                    if !started {
                        connection.phase = .awaitingHead(started: true)
                        connection.isBusy = true
                        setDeadline(connection, seconds: headSeconds)
                    }
                case .wouldBlock:
                    return
                case .endOfFile:
                    if connection.unconsumed == 0 { return close(connection) }
                    return fail(connection, .badRequest("the connection was closed before the request head was complete"))
                case .failed:
                    return close(connection)
                }
            case .readingBody(let head, let length):
                if connection.unconsumed >= length {
                    dispatch(connection, head: head, length: length)
                    continue
                }
                switch receive(connection, keeping: true) {
                case .bytes: continue
                case .wouldBlock: return
                case .endOfFile:
                    return fail(connection, .badRequest("the connection was closed after \(connection.unconsumed) of \(length) body bytes"))
                case .failed:
                    return close(connection)
                }
            case .handling, .writing:
                return
            case .draining:
                switch receive(connection, keeping: false) {
                case .bytes: continue
                case .wouldBlock: return
                case .endOfFile, .failed: return close(connection)
                }
            }
        }
    }

    /// Parses what is buffered; true when the phase moved on.
    private func progressHead(_ connection: LoopConnection) -> Bool {
        let cr = RequestParser.cr, lf = RequestParser.lf
        // Empty lines before a request line are ignored (RFC 9112 §2.2).
        while connection.unconsumed >= 2 && connection.buffer[connection.consumed] == cr
                && connection.buffer[connection.consumed + 1] == lf {
            connection.consumed += 2
            connection.scanned = connection.consumed
        }
        if let end = RequestParser.headEnd(in: connection.buffer, start: connection.consumed,
                                           scanFrom: max(connection.scanned, connection.consumed)) {
            guard end - connection.consumed <= limits.maxHeaderBytes else {
                fail(connection, Self.headTooLarge(limits))
                return true
            }
            let parsed = RequestParser.parseHead(connection.buffer[connection.consumed..<end])
            connection.consumed = end
            connection.scanned = end
            switch parsed {
            case .success(let head): beginBody(connection, head: head)
            case .failure(let failure): fail(connection, failure)
            }
            return true
        }
        connection.scanned = connection.buffer.count
        if connection.unconsumed > limits.maxHeaderBytes {
            fail(connection, Self.headTooLarge(limits))
            return true
        }
        if let failure = RequestParser.checkPartialRequestLine(connection.buffer[connection.consumed...]) {
            fail(connection, failure)
            return true
        }
        return false
    }

    private func beginBody(_ connection: LoopConnection, head: RequestHead) {
        let length: Int
        switch RequestParser.bodyLength(of: head, maxBodyBytes: limits.maxBodyBytes) {
        case .success(let value): length = value
        case .failure(let failure): return fail(connection, failure)
        }
        connection.phase = .readingBody(head, length: length)
        guard length > connection.unconsumed else {
            connection.waitTicket = 0
            return
        }
        // libcurl waits a second for this before sending a body of more than 1 KiB (RFC 9110 §10.1.1).
        if !head.isHTTP10, head.headers["Expect"].map({ $0.lowercased() == "100-continue" }) == true {
            connection.output.append(contentsOf: Self.continueLine)
            flush(connection)
            if connection.isClosed { return }
        }
        // A body still to come can be cut off to make room in a full server,
        // as a dawdling head can: slow bodies cannot hold the slots either.
        setDeadline(connection, seconds: bodySeconds(length))
        markWaiting(connection)
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The least rate a body must arrive at, after the header timeout's
    /// grace: a 1 MiB body has 5 + 16 s, a sign-in's 5 s, never more than
    /// the idle timeout.
    static let minimumBodyBytesPerSecond = 64.0 * 1024

    private func bodySeconds(_ length: Int) -> Double {
        min(limits.idleTimeout, limits.headerTimeout + Double(length) / Self.minimumBodyBytesPerSecond)
    }

    private func dispatch(_ connection: LoopConnection, head: RequestHead, length: Int) {
        let body = Array(connection.buffer[connection.consumed..<connection.consumed + length])
        connection.consumed += length
        connection.compact()
        connection.waitTicket = 0
        let decoded: (path: String, query: [String: String])
        switch RequestTarget.decode(head.target) {
        case .success(let value): decoded = value
        case .failure(let failure): return fail(connection, failure)
        }
        if let failure = RequestParser.checkHost(of: head) { return fail(connection, failure) }
        connection.phase = .handling(head)
        connection.deadline = 0
        jobs.append(HandlerPool.Job(connection: connection.id, request: HTTPRequest(
            method: head.method, target: head.target, path: decoded.path, query: decoded.query,
            headers: head.headers, body: body, remoteAddress: connection.remoteAddress, version: head.version)))
    }

    // MARK: Answering

    private func deliver(_ posted: LoopInbox.Reply) {
        guard let connection = connections[posted.connection], case .handling(let head) = connection.phase else { return }
        if case .later(let pending) = posted.reply {
            connection.pending = pending
            pending.attach(to: inbox, connection: connection.id)
            if stopDeadline != nil { pending.complete(.respond(pending.answerAtStop)) }
            if connection.inputEnded { pending.clientLeft() }
            return
        }
        connection.pending = nil
        let keepAlive = Self.wantsKeepAlive(head) && stopDeadline == nil && !server.isStopping
        let headOnly = head.method == "HEAD"
        switch posted.reply {
        case .respond(let response):
            let keep = keepAlive && !Self.hasToken("close", in: response.headers.values(for: "Connection"))
            let field: String? = keep ? (head.isHTTP10 ? "keep-alive" : nil) : "close"
            send(ResponseSerializer.serialize(response, headOnly: headOnly, connection: field, date: httpDate()), on: connection,
                 then: keep ? .nextRequest : .closeGracefully)
        case .closeWithoutAnswer:
            closeGracefully(connection)
        case .truncate(let response, let afterBytes):
            let bytes = ResponseSerializer.serialize(
                response, headOnly: headOnly, connection: keepAlive ? (head.isHTTP10 ? "keep-alive" : nil) : "close")
            send(Array(bytes.prefix(max(0, afterBytes))), on: connection, then: .closeGracefully)
        case .later:
            break
        }
    }

    /// The server's own problem answer, after which the connection closes.
    private func fail(_ connection: LoopConnection, _ failure: RequestFailure) {
        connection.waitTicket = 0
        let response = HTTPResponse.problem(status: failure.status, detail: failure.detail)
        send(ResponseSerializer.serialize(response, headOnly: false, connection: "close"), on: connection, then: .closeGracefully)
    }

    private func send(_ bytes: [UInt8], on connection: LoopConnection, then after: LoopConnection.AfterAnswer) {
        connection.phase = .writing(after: after)
        connection.deadline = 0
        connection.waitTicket = 0
        if connection.output.isEmpty { connection.output = bytes } else { connection.output.append(contentsOf: bytes) }
        flush(connection)
    }

    /// Sends what it can of the output; once all is sent, moves on as the answer said.
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
                // A peer that takes no bytes for this long is gone.
                if case .writing = connection.phase { setDeadline(connection, seconds: limits.idleTimeout) }
                return
            }
            return close(connection)
        }
        connection.output.removeAll(keepingCapacity: connection.output.capacity <= 16 * 1024)
        connection.outputSent = 0
        guard case .writing(let after) = connection.phase else { return }
        switch after {
        case .nextRequest:
            if stopDeadline != nil || server.isStopping { return closeGracefully(connection) }
            startAwaitingHead(connection)
            drive(connection)
        case .closeGracefully:
            closeGracefully(connection)
        }
    }

    /// Always a graceful close after an answer: a pipelining client may have
    /// more requests in flight, and closing on them would reset the
    /// connection and destroy the answer just sent before the client reads
    /// it (RFC 9112 §9.6; found by the http-connection fuzz target).
    private func closeGracefully(_ connection: LoopConnection) {
        _ = shutdown(connection.fd, Int32(SHUT_WR))
        connection.phase = .draining
        connection.isBusy = false
        connection.consumed = connection.buffer.count
        connection.compact()
        setDeadline(connection, seconds: min(1, limits.idleTimeout))
        // Waiting for the peer's end of file: a full server may cut it off.
        if connection.countsAgainstLimit { markWaiting(connection) }
        drive(connection)
    }

    /// `placeGiven`: its place among the open connections went to another.
    private func close(_ connection: LoopConnection, placeGiven: Bool = false) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        connection.waitTicket = 0
        connection.pending = nil
        Glibc.close(connection.fd)
        connections[connection.id] = nil
        if connection.countsAgainstLimit {
            if !placeGiven { admission.release(connection.peer) }
        } else {
            overflowAnswers -= 1
        }
    }

    /// The `Date` value, formatted once a second by this loop.
    private var dateSecond = 0
    private var dateText = ""

    private func httpDate() -> String {
        let second = time(nil)
        if second != dateSecond {
            dateSecond = second
            dateText = HTTPDate.format(secondsSince1970: second)
        }
        return dateText
    }

    // MARK: Deadlines

    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, min(seconds, 86_400 * 365)) * 1e9)
    }

    private func setDeadline(_ connection: LoopConnection, seconds: Double) {
        let due = now + Self.nanoseconds(seconds)
        connection.deadline = due
        if connection.scheduled == 0 || due < connection.scheduled {
            deadlines.push(DeadlineHeap.Entry(due: due, connection: connection.id))
            connection.scheduled = due
        }
    }

    private func expireDeadlines() {
        while let due = deadlines.soonest, due <= now, let entry = deadlines.pop() {
            guard let connection = connections[entry.connection], connection.scheduled == entry.due else { continue }
            connection.scheduled = 0
            guard connection.deadline != 0 else { continue }
            if connection.deadline > now {
                deadlines.push(DeadlineHeap.Entry(due: connection.deadline, connection: connection.id))
                connection.scheduled = connection.deadline
                continue
            }
            connection.deadline = 0
            timedOut(connection)
        }
    }

    private func timedOut(_ connection: LoopConnection) {
        switch connection.phase {
        case .awaitingHead(let started):
            // Nothing came at all: a silent close.
            guard started else { return close(connection) }
            fail(connection, RequestFailure(status: 408, detail: "the request's headers did not arrive within \(headSeconds) seconds"))
        case .readingBody(_, let length):
            let seconds = Int(bodySeconds(length).rounded(.up))
            fail(connection, RequestFailure(status: 408, detail: "the request's body did not arrive within \(seconds) seconds"))
        case .writing, .draining:
            close(connection)
        case .handling:
            break
        }
    }

    private static func headTooLarge(_ limits: HTTPServerLimits) -> RequestFailure {
        RequestFailure(status: 431, detail: "the request line and headers exceed \(limits.maxHeaderBytes) bytes")
    }

    // MARK: Connection management

    /// HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 closes
    /// unless told `keep-alive` (RFC 9112 §9.3).
    static func wantsKeepAlive(_ head: RequestHead) -> Bool {
        let values = head.headers.values(for: "Connection")
        if head.isHTTP10 { return hasToken("keep-alive", in: values) && !hasToken("close", in: values) }
        return !hasToken("close", in: values)
    }

    static func hasToken(_ token: String, in values: [String]) -> Bool {
        values.contains { value in
            value.split(separator: ",").contains {
                HTTPHeaders.sameName($0.trimmingSpacesAndTabs(), token)
            }
        }
    }
}
