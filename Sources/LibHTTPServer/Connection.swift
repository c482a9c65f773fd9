#if canImport(Glibc)
import Glibc
import LibBase
#endif

/// One client connection, served on its own thread: reads requests one after
/// another (pipelined ones in order), calls the handler, writes the answers.
final class Connection: @unchecked Sendable {
    // @unchecked: after creation the object is only ever used by its own thread.
    private let server: HTTPServer
    private let id: Int
    private let fd: Int32
    private let remoteAddress: String
    /// No request has been read yet: waiting for the first one is bounded by
    /// the header timeout, not the (longer) keep-alive idle timeout.
    private var isFresh = true
    private var limits: HTTPServerLimits { server.limits }
    /// Received bytes not yet consumed: the rest of a request, or pipelined ones.
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(server: HTTPServer, id: Int, fd: Int32, remoteAddress: String) {
        self.server = server
        self.id = id
        self.fd = fd
        self.remoteAddress = remoteAddress
    }

    /// What to do after one exchange.
    private enum Outcome {
        case keepOpen
        case close
        /// Close after draining: the peer may still be sending (see SocketIO.drainBeforeClose).
        case closeGracefully
    }

    func serve() {
        var outcome = Outcome.keepOpen
        while case .keepOpen = outcome { outcome = serveOneRequest() }
        _ = server.setBusy(id, false)
        if case .closeGracefully = outcome {
            SocketIO.drainBeforeClose(fd, seconds: min(1, limits.idleTimeout))
        }
        server.unregister(id)
        close(fd)
    }

    private func serveOneRequest() -> Outcome {
        let head: RequestHead
        server.setAwaitingHead(id, true)
        let read = readHead()
        server.setAwaitingHead(id, false)
        switch read {
        case .head(let parsed): head = parsed
        case .gone: return .close
        case .failed(let failure): return answer(failure)
        }
        let length: Int
        switch RequestParser.bodyLength(of: head, maxBodyBytes: limits.maxBodyBytes) {
        case .success(let value): length = value
        case .failure(let failure): return answer(failure)
        }
        // libcurl waits a second for this before sending a body of more than 1 KiB (RFC 9110 §10.1.1).
        if length > buffer.count, !head.isHTTP10,
           head.headers["Expect"].map({ $0.lowercased() == "100-continue" }) == true {
            guard SocketIO.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)[...]) else { return .close }
        }
        let body: [UInt8]
        // A body still to come can be cut off to make room in a full server,
        // as a dawdling head can: slow bodies cannot hold the slots either.
        if length > buffer.count { server.setAwaitingHead(id, true) }
        let bodyRead = readBody(length: length)
        server.setAwaitingHead(id, false)
        switch bodyRead {
        case .body(let bytes): body = bytes
        case .gone: return .close
        case .failed(let failure): return answer(failure)
        }
        let decoded: (path: String, query: [String: String])
        switch RequestTarget.decode(head.target) {
        case .success(let value): decoded = value
        case .failure(let failure): return answer(failure)
        }
        if let failure = RequestParser.checkHost(of: head) { return answer(failure) }
        let request = HTTPRequest(
            method: head.method, target: head.target, path: decoded.path, query: decoded.query,
            headers: head.headers, body: body, remoteAddress: remoteAddress, version: head.version)
        let reply = server.handler(request)
        let keepAlive = Self.wantsKeepAlive(head) && !server.isStopping
        let headOnly = head.method == "HEAD"
        switch reply {
        case .respond(let response):
            let keep = keepAlive && !Self.hasToken("close", in: response.headers.values(for: "Connection"))
            let connection: String? = keep ? (head.isHTTP10 ? "keep-alive" : nil) : "close"
            let bytes = ResponseSerializer.serialize(response, headOnly: headOnly, connection: connection)
            guard SocketIO.sendAll(fd, bytes[...]) else { return .close }
            guard keep else { return closing() }
            let stopping = server.setBusy(id, false)
            return stopping ? closing() : .keepOpen
        case .closeWithoutAnswer:
            return closing()
        case .truncate(let response, let afterBytes):
            let bytes = ResponseSerializer.serialize(
                response, headOnly: headOnly, connection: keepAlive ? (head.isHTTP10 ? "keep-alive" : nil) : "close")
            _ = SocketIO.sendAll(fd, bytes.prefix(max(0, afterBytes)))
            return closing()
        }
    }

    /// Always a graceful close after an answer: a pipelining client may have
    /// more requests in flight that are not in `buffer` yet, and closing on
    /// them would reset the connection and destroy the answer just sent
    /// before the client reads it (RFC 9112 §9.6; found by the http-connection
    /// fuzz target).
    private func closing() -> Outcome {
        .closeGracefully
    }

    /// Sends the server's own problem answer, after which the connection closes.
    private func answer(_ failure: RequestFailure) -> Outcome {
        let response = HTTPResponse.problem(status: failure.status, detail: failure.detail)
        let bytes = ResponseSerializer.serialize(response, headOnly: false, connection: "close")
        guard SocketIO.sendAll(fd, bytes[...]) else { return .close }
        return .closeGracefully
    }

    // MARK: Reading

    private enum HeadResult {
        case head(RequestHead)
        /// The peer closed or idled out between requests, or the socket failed: close silently.
        case gone
        case failed(RequestFailure)
    }

    private func readHead() -> HeadResult {
        var scanned = 0
        let headSeconds = min(limits.headerTimeout, limits.idleTimeout)
        var started = buffer.isEmpty ? nil : ContinuousClock.now
        // Before the first byte: a new connection gets the header timeout, a
        // kept-alive one the idle timeout.
        let waitingSince = ContinuousClock.now
        let waitSeconds = isFresh ? headSeconds : limits.idleTimeout
        isFresh = false
        while true {
            // Empty lines before a request line are ignored (RFC 9112 §2.2).
            if buffer.count >= 2 && buffer[0] == RequestParser.cr && buffer[1] == RequestParser.lf {
                let skip = Self.leadingEmptyLineBytes(buffer)
                buffer.removeFirst(skip)
                scanned = 0
            }
            if let end = RequestParser.headEnd(in: buffer, start: 0, scanFrom: scanned) {
                guard end <= limits.maxHeaderBytes else { return .failed(Self.headTooLarge(limits)) }
                let parsed = RequestParser.parseHead(buffer[0..<end])
                buffer.removeFirst(end)
                switch parsed {
                case .success(let head): return .head(head)
                case .failure(let failure): return .failed(failure)
                }
            }
            scanned = buffer.count
            if buffer.count > limits.maxHeaderBytes { return .failed(Self.headTooLarge(limits)) }
            if let failure = RequestParser.checkPartialRequestLine(buffer[...]) { return .failed(failure) }
            let deadline = started.map { $0 + Self.duration(headSeconds) } ?? waitingSince + Self.duration(waitSeconds)
            switch SocketIO.receive(fd, into: &scratch, before: deadline) {
            case .bytes(let count):
                if started == nil {
                    started = ContinuousClock.now
                    _ = server.setBusy(id, true)
                }
                buffer.append(contentsOf: scratch[0..<count])
            case .closed:
                guard buffer.isEmpty else {
                    return .failed(.badRequest("the connection was closed before the request head was complete"))
                }
                return .gone
            case .timedOut:
                return started == nil ? .gone : .failed(headTimeout(headSeconds))
            case .failed:
                return .gone
            }
        }
    }

    private static func duration(_ seconds: Double) -> Duration { .milliseconds(Int(seconds * 1000)) }

    private func headTimeout(_ seconds: Double) -> RequestFailure {
        RequestFailure(status: 408, detail: "the request's headers did not arrive within \(seconds) seconds")
    }

    private enum BodyResult {
        case body([UInt8])
        case gone
        case failed(RequestFailure)
    }

    /// The least rate a body must arrive at, after the header timeout's
    /// grace: a 1 MiB body has 5 + 16 s, a sign-in's 5 s, never more than
    /// the idle timeout.
    static let minimumBodyBytesPerSecond = 64.0 * 1024

    private func bodySeconds(_ length: Int) -> Double {
        min(limits.idleTimeout, limits.headerTimeout + Double(length) / Self.minimumBodyBytesPerSecond)
    }

    private func readBody(length: Int) -> BodyResult {
        let seconds = bodySeconds(length)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        if buffer.count < length { buffer.reserveCapacity(length) }
        while buffer.count < length {
            switch SocketIO.receive(fd, into: &scratch, before: deadline) {
            case .bytes(let count):
                buffer.append(contentsOf: scratch[0..<count])
            case .closed:
                return .failed(.badRequest(
                    "the connection was closed after \(buffer.count) of \(length) body bytes"))
            case .timedOut:
                return .failed(RequestFailure(status: 408, detail: "the request's body did not arrive within \(Int(seconds.rounded(.up))) seconds"))
            case .failed:
                return .gone
            }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return .body(body)
    }

    private static func headTooLarge(_ limits: HTTPServerLimits) -> RequestFailure {
        RequestFailure(status: 431, detail: "the request line and headers exceed \(limits.maxHeaderBytes) bytes")
    }

    private static func leadingEmptyLineBytes(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index + 1 < bytes.count && bytes[index] == RequestParser.cr && bytes[index + 1] == RequestParser.lf {
            index += 2
        }
        return index
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
