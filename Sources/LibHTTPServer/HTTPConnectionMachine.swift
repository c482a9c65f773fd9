import LibBase

/// One connection's HTTP/1.1 exchange, without its socket: told what the
/// event loop saw (bytes received, the end of the input, the handler's
/// answer, an answer all sent, a deadline passed), it says what to do next
/// (`Action`). It reads request heads and Content-Length bodies within the
/// limits, serves pipelined requests one after another, keeps the
/// connection alive or closes it, and drains before closing.
final class HTTPConnectionMachine {
    enum Phase: Equatable {
        /// Waiting for a request head: a new connection, or a kept-alive
        /// one between requests. `started`: its first byte has arrived.
        case awaitingHead(started: Bool)
        case readingBody(RequestHead, length: Int)
        /// The handler has the request: nothing is read until it answers.
        case handling(RequestHead)
        /// An answer is being sent; then `after`.
        case writing(after: AfterAnswer)
        /// Half-closed after an answer: what the peer still sends is dropped
        /// until it closes or the deadline passes (RFC 9112 §9.6).
        case draining
    }

    enum AfterAnswer: Equatable {
        case nextRequest
        case closeGracefully
    }

    /// What the event loop is to do, in order.
    enum Action {
        /// The current wait ends this many seconds from now.
        case setDeadline(seconds: Double)
        case clearDeadline
        /// The connection waits for the bytes of a request: a full server
        /// may cut it off to make room for a new one.
        case startWaiting
        case stopWaiting
        /// Hand this request to the handler; `answer` takes its reply.
        case dispatch(HTTPRequest)
        /// Send these bytes; `allSent` once they are all gone.
        case send([UInt8])
        /// Shut down the sending side and read until the peer closes; a full
        /// server may cut it off meanwhile.
        case shutDownSending
        case close
    }

    private let limits: HTTPServerLimits
    private let remoteAddress: String
    private(set) var phase: Phase = .awaitingHead(started: false)
    /// No request has been read yet: waiting for the first one is bounded by
    /// the header timeout, not the (longer) keep-alive idle timeout.
    private var isFresh = true

    /// Received bytes; those before `consumed` are used up.
    private var buffer: [UInt8] = []
    private var consumed = 0
    /// How far the search for the end of the head has gone (an index in `buffer`).
    private var scanned = 0

    init(limits: HTTPServerLimits, remoteAddress: String) {
        self.limits = limits
        self.remoteAddress = remoteAddress
    }

    /// Received bytes not yet part of a request handed on.
    var unconsumed: Int { buffer.count - consumed }

    /// Whether the event loop should read: the machine waits for a head, a
    /// body or, draining, the peer's end of file.
    var wantsBytes: Bool {
        switch phase {
        case .awaitingHead, .readingBody, .draining: true
        case .handling, .writing: false
        }
    }

    /// Between requests with nothing received: a stopping server closes it at once.
    var isIdle: Bool { phase == .awaitingHead(started: false) && unconsumed == 0 }

    var isAwaitingAnswer: Bool {
        if case .handling = phase { return true }
        return false
    }

    var isSendingAnswer: Bool {
        if case .writing = phase { return true }
        return false
    }

    private var headSeconds: Double { min(limits.headerTimeout, limits.idleTimeout) }

    /// The least rate a body must arrive at, after the header timeout's
    /// grace: a 1 MiB body has 5 + 16 s, a sign-in's 5 s, never more than
    /// the idle timeout.
    static let minimumBodyBytesPerSecond = 64.0 * 1024

    private func bodySeconds(_ length: Int) -> Double {
        min(limits.idleTimeout, limits.headerTimeout + Double(length) / Self.minimumBodyBytesPerSecond)
    }

    // MARK: Events

    /// The connection has just opened.
    func start() -> [Action] {
        defer { isFresh = false }
        return startAwaitingHead()
    }

    func received(_ bytes: ArraySlice<UInt8>) -> [Action] {
        switch phase {
        case .awaitingHead(started: false):
            buffer.append(contentsOf: bytes)
            phase = .awaitingHead(started: true)
            return [.setDeadline(seconds: headSeconds)] + advance()
        case .awaitingHead, .readingBody:
            buffer.append(contentsOf: bytes)
            return advance()
        case .handling, .writing:
            // Pipelined: read once this request is answered.
            buffer.append(contentsOf: bytes)
            return []
        case .draining:
            return []
        }
    }

    /// The peer sends nothing more. Handling or writing, nothing changes:
    /// the event loop tells again once the machine wants bytes.
    func receivedEndOfFile() -> [Action] {
        switch phase {
        case .awaitingHead:
            if unconsumed == 0 { return [.close] }
            return fail(.badRequest("the connection was closed before the request head was complete"))
        case .readingBody(_, let length):
            return fail(.badRequest("the connection was closed after \(unconsumed) of \(length) body bytes"))
        case .draining:
            return [.close]
        case .handling, .writing:
            return []
        }
    }

    /// The handler's reply to the dispatched request (`.later` is the event
    /// loop's to wait for). `serverStopping`: no connection is kept alive.
    func answer(_ reply: HTTPReply, serverStopping: Bool, date: String? = nil) -> [Action] {
        guard case .handling(let head) = phase else { return [] }
        let keepAlive = Self.wantsKeepAlive(head) && !serverStopping
        let headOnly = head.method == "HEAD"
        switch reply {
        case .respond(let response):
            let keep = keepAlive && !Self.hasToken("close", in: response.headers.values(for: "Connection"))
            let field: String? = keep ? (head.isHTTP10 ? "keep-alive" : nil) : "close"
            return send(ResponseSerializer.serialize(response, headOnly: headOnly, connection: field, date: date),
                        then: keep ? .nextRequest : .closeGracefully)
        case .closeWithoutAnswer:
            return closeGracefully()
        case .truncate(let response, let afterBytes):
            let bytes = ResponseSerializer.serialize(
                response, headOnly: headOnly, connection: keepAlive ? (head.isHTTP10 ? "keep-alive" : nil) : "close")
            return send(Array(bytes.prefix(max(0, afterBytes))), then: .closeGracefully)
        case .later:
            return []
        }
    }

    /// The server's answer before any request (a full server's 503); then it closes.
    func refuse(_ answer: [UInt8]) -> [Action] {
        send(answer, then: .closeGracefully)
    }

    /// Everything `send` asked for has been sent.
    func allSent(serverStopping: Bool) -> [Action] {
        guard case .writing(let after) = phase else { return [] }
        switch after {
        case .nextRequest:
            if serverStopping { return closeGracefully() }
            return startAwaitingHead()
        case .closeGracefully:
            return closeGracefully()
        }
    }

    /// The peer takes no more bytes for now.
    func sendBlocked() -> [Action] {
        // A peer that takes no bytes for this long is gone.
        isSendingAnswer ? [.setDeadline(seconds: limits.idleTimeout)] : []
    }

    func deadlinePassed() -> [Action] {
        switch phase {
        case .awaitingHead(let started):
            // Nothing came at all: a silent close.
            guard started else { return [.close] }
            return fail(RequestFailure(status: 408, detail: "the request's headers did not arrive within \(headSeconds) seconds"))
        case .readingBody(_, let length):
            let seconds = Int(bodySeconds(length).rounded(.up))
            return fail(RequestFailure(status: 408, detail: "the request's body did not arrive within \(seconds) seconds"))
        case .writing, .draining:
            return [.close]
        case .handling:
            return []
        }
    }

    // MARK: Reading requests

    private func startAwaitingHead() -> [Action] {
        let started = unconsumed > 0
        phase = .awaitingHead(started: started)
        // Before the first byte: a new connection gets the header timeout, a
        // kept-alive one the idle timeout.
        let seconds = started || isFresh ? headSeconds : limits.idleTimeout
        return [.setDeadline(seconds: seconds), .startWaiting] + advance()
    }

    /// Serves what is buffered as far as it goes.
    private func advance() -> [Action] {
        var actions: [Action] = []
        while true {
            switch phase {
            case .awaitingHead:
                guard let step = progressHead() else { return actions }
                actions += step
            case .readingBody(let head, let length):
                guard unconsumed >= length else { return actions }
                actions += dispatch(head, length: length)
            case .handling, .writing, .draining:
                return actions
            }
        }
    }

    /// Parses what is buffered; nil until the head is complete (or refused).
    private func progressHead() -> [Action]? {
        let cr = RequestParser.cr, lf = RequestParser.lf
        // Empty lines before a request line are ignored (RFC 9112 §2.2).
        while unconsumed >= 2 && buffer[consumed] == cr && buffer[consumed + 1] == lf {
            consumed += 2
            scanned = consumed
        }
        if let end = RequestParser.headEnd(in: buffer, start: consumed, scanFrom: max(scanned, consumed)) {
            guard end - consumed <= limits.maxHeaderBytes else { return fail(headTooLarge) }
            let parsed = RequestParser.parseHead(buffer[consumed..<end])
            consumed = end
            scanned = end
            switch parsed {
            case .success(let head): return beginBody(head)
            case .failure(let failure): return fail(failure)
            }
        }
        scanned = buffer.count
        if unconsumed > limits.maxHeaderBytes { return fail(headTooLarge) }
        if let failure = RequestParser.checkPartialRequestLine(buffer[consumed...]) { return fail(failure) }
        return nil
    }

    private var headTooLarge: RequestFailure {
        RequestFailure(status: 431, detail: "the request line and headers exceed \(limits.maxHeaderBytes) bytes")
    }

    private func beginBody(_ head: RequestHead) -> [Action] {
        let length: Int
        switch RequestParser.bodyLength(of: head, maxBodyBytes: limits.maxBodyBytes) {
        case .success(let value): length = value
        case .failure(let failure): return fail(failure)
        }
        phase = .readingBody(head, length: length)
        guard length > unconsumed else { return [] }
        // A body still to come can be cut off to make room in a full server,
        // as a dawdling head can: slow bodies cannot hold the slots either.
        var actions: [Action] = [.setDeadline(seconds: bodySeconds(length)), .startWaiting]
        // libcurl waits a second for this before sending a body of more than 1 KiB (RFC 9110 §10.1.1).
        if !head.isHTTP10, head.headers["Expect"].map({ $0.lowercased() == "100-continue" }) == true {
            actions.append(.send(Self.continueLine))
        }
        return actions
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private func dispatch(_ head: RequestHead, length: Int) -> [Action] {
        let body = Array(buffer[consumed..<consumed + length])
        consumed += length
        compact()
        let decoded: (path: String, query: [String: String])
        switch RequestTarget.decode(head.target) {
        case .success(let value): decoded = value
        case .failure(let failure): return fail(failure)
        }
        if let failure = RequestParser.checkHost(of: head) { return fail(failure) }
        phase = .handling(head)
        return [.stopWaiting, .clearDeadline, .dispatch(HTTPRequest(
            method: head.method, target: head.target, path: decoded.path, query: decoded.query,
            headers: head.headers, body: body, remoteAddress: remoteAddress, version: head.version))]
    }

    /// Drops the consumed bytes once they are all there is, or a lot.
    private func compact() {
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16 * 1024)
            scanned = 0
            consumed = 0
        } else if consumed > 64 * 1024 {
            buffer.removeFirst(consumed)
            scanned = max(0, scanned - consumed)
            consumed = 0
        }
    }

    // MARK: Answering

    /// The server's own problem answer, after which the connection closes.
    private func fail(_ failure: RequestFailure) -> [Action] {
        let response = HTTPResponse.problem(status: failure.status, detail: failure.detail)
        return send(ResponseSerializer.serialize(response, headOnly: false, connection: "close"), then: .closeGracefully)
    }

    private func send(_ bytes: [UInt8], then after: AfterAnswer) -> [Action] {
        phase = .writing(after: after)
        return [.stopWaiting, .clearDeadline, .send(bytes)]
    }

    /// Always a graceful close after an answer: a pipelining client may have
    /// more requests in flight, and closing on them would reset the
    /// connection and destroy the answer just sent before the client reads
    /// it (RFC 9112 §9.6; found by the http-connection fuzz target).
    private func closeGracefully() -> [Action] {
        phase = .draining
        consumed = buffer.count
        compact()
        return [.shutDownSending, .setDeadline(seconds: min(1, limits.idleTimeout))]
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
