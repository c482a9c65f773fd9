import Dispatch
import Glibc
import LibBase
@testable import LibHTTPServer
import Synchronization

/// lib-server's connection state machine on any byte stream: a real
/// event loop reads the input from a socket, in pieces whose sizes the
/// input chooses, serves every request in it (pipelined, keep-alive, bodies,
/// `Expect: 100-continue`, answers cut short, answers refused) and closes.
/// Never a crash or a hang, within small limits (memory stays bounded), every
/// request the handler sees is framed as its head said, and the bytes sent
/// back are exactly the handler's answers in order, optionally followed by
/// one answer of the server's own (400, 408, 413, 431, 501, 505) before it
/// closes.
///
/// The same stream is first fed straight to the connection's state machine
/// (`HTTPConnectionMachine`, no socket, every answer taken at once), which
/// must keep the same properties, bound its buffer, and end in one close,
/// never before the client has sent everything, with nothing sent after
/// its sending side is shut down.
///
/// The first input byte chooses the piece size (0: everything at once);
/// the rest is what the client sends. SOCK_SEQPACKET keeps the pieces apart,
/// so that each input replays the same way.
enum HTTPConnectionProperty: FuzzProperty {
    static let limits: HTTPServerLimits = {
        var limits = HTTPServerLimits()
        limits.maxHeaderBytes = 1024
        limits.maxBodyBytes = 256
        limits.idleTimeout = 5
        return limits
    }()

    private struct Call: Sendable {
        let method: String
        let reply: Reply
        var violation: String?
    }

    private enum Reply: Sendable { case respond(status: Int), close, truncate(Int) }

    private static let calls = Mutex<[Call]>([])
    private static let server = HTTPServer(limits: limits) { request in handle(request) }

    /// Answers by path: `/close`, `/truncate/N`, `/status/N`, `/connection-close`,
    /// anything else 200 with the body echoed. `X-Call` numbers the answers.
    private static func handle(_ request: HTTPRequest) -> HTTPReply {
        var violation: String?
        let framed = request.headers["Content-Length"].flatMap { Int($0) } ?? 0
        if request.body.count != framed { violation = "the body has \(request.body.count) bytes, Content-Length said \(framed)" }
        if request.path.utf8.contains(0) { violation = "the path contains NUL" }
        if !request.target.hasPrefix("/") { violation = "the target does not start with /" }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        let number = parts.count > 1 ? Int(parts[1]) : nil
        let index = calls.withLock { $0.count }
        var headers = HTTPHeaders([("X-Call", String(index)), ("Content-Type", "text/plain")])
        let reply: HTTPReply
        let kind: Reply
        switch (parts.first, number) {
        case ("close", _):
            reply = .closeWithoutAnswer
            kind = .close
        case ("truncate", let count?):
            reply = .truncate(HTTPResponse(status: 200, headers: headers, body: Array("0123456789".utf8)), afterBytes: count)
            kind = .truncate(count)
        case ("status", let status?) where (200...599).contains(status):
            reply = .respond(HTTPResponse(status: status, headers: headers, body: Array("x".utf8)))
            kind = .respond(status: status)
        default:
            if parts.first == "connection-close" { headers.add("Connection", "close") }
            reply = .respond(HTTPResponse(status: 200, headers: headers, body: request.body))
            kind = .respond(status: 200)
        }
        calls.withLock { $0.append(Call(method: request.method, reply: kind, violation: violation)) }
        return reply
    }

    static func check(_ input: [UInt8]) -> String? {
        let pieceSize = input.first.map { $0 == 0 ? Int.max : Int($0) } ?? Int.max
        let stream = Array(input.dropFirst())
        if let violation = checkMachine(stream, pieceSize: pieceSize) { return "the state machine alone: \(violation)" }
        calls.withLock { $0.removeAll() }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            return nil  // out of descriptors: not the server's fault
        }
        let client = fds[0]
        let served = fds[1]
        let finished = DispatchSemaphore(value: 0)
        guard NativeThread.start(detached: true, { server.serve(connectedSocket: served, remoteAddress: "fuzz:1"); finished.signal() }) != nil else {
            close(client); close(fds[1]); return nil
        }
        let exchange = converse(client, sending: stream, pieceSize: pieceSize)
        close(client)
        guard finished.wait(timeout: .now() + 10) == .success else { return "the connection did not finish" }
        guard let received = exchange else { return "the server did not close the connection within 10 s" }
        let seen = calls.withLock { $0 }
        if let violation = seen.compactMap(\.violation).first { return violation }
        return checkAnswers(received, calls: seen).map {
            "\($0); the server sent \(String(decoding: received.prefix(300), as: UTF8.self).debugDescription)"
        }
    }

    /// Plays the event loop for the machine: feeds it the pieces while it
    /// wants bytes, then the end of the input (again whenever it wants more),
    /// answers each request at once and sends each answer whole.
    private static func checkMachine(_ stream: [UInt8], pieceSize: Int) -> String? {
        calls.withLock { $0.removeAll() }
        let machine = HTTPConnectionMachine(limits: limits, remoteAddress: "fuzz:1")
        let bound = limits.maxHeaderBytes + limits.maxBodyBytes + min(pieceSize, stream.count)
        var sent: [UInt8] = []
        var offset = 0
        var shutDown = false
        var closed = false
        var actions = machine.start()
        for _ in 0..<100_000 {
            var request: HTTPRequest?
            var sending = false
            for action in actions {
                if closed { return "an action after the close" }
                switch action {
                case .send(let bytes):
                    if shutDown { return "bytes sent after the sending side was shut down" }
                    sent += bytes
                    sending = true
                case .dispatch(let dispatched): request = dispatched
                case .shutDownSending: shutDown = true
                case .close:
                    // Unread bytes would reset the connection and could destroy the answer (RFC 9112 §9.6).
                    if offset < stream.count { return "closed while the client was still sending" }
                    closed = true
                case .setDeadline, .clearDeadline, .startWaiting, .stopWaiting: break
                }
            }
            if machine.unconsumed > bound { return "\(machine.unconsumed) bytes buffered" }
            if closed {
                if let violation = checkAnswers(sent, calls: calls.withLock { $0 }) { return violation }
                return calls.withLock { $0 }.compactMap(\.violation).first
            }
            if sending {
                actions = machine.allSent(serverStopping: false)
            } else if let request {
                actions = machine.answer(handle(request), serverStopping: false)
            } else if machine.wantsBytes && offset < stream.count {
                let end = min(stream.count, offset + min(pieceSize, 16 * 1024))
                actions = machine.received(stream[offset..<end])
                offset = end
            } else if machine.wantsBytes {
                actions = machine.receivedEndOfFile()
            } else {
                return "stuck in \(machine.phase) with nothing to do"
            }
        }
        return "no close after 100000 steps"
    }

    /// Sends the pieces and reads the answers until the server closes; nil on a hang.
    private static func converse(_ fd: Int32, sending stream: [UInt8], pieceSize: Int) -> [UInt8]? {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var offset = 0
        var shutDown = false
        var received: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if offset >= stream.count && !shutDown {
                _ = shutdown(fd, Int32(SHUT_WR))
                shutDown = true
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN) | (shutDown ? 0 : Int16(POLLOUT)), revents: 0)
            guard poll(&ready, 1, 1000) > 0 else { continue }
            if ready.revents & Int16(POLLIN | POLLHUP) != 0 {
                let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { return received }
                if count > 0 { received += scratch[0..<count]; continue }
                if errno == ECONNRESET { return received }
            }
            if !shutDown && ready.revents & Int16(POLLOUT) != 0 {
                let end = min(stream.count, offset + min(pieceSize, 16 * 1024))
                let sent = stream[offset..<end].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent > 0 { offset += sent } else if sent < 0 && errno == EPIPE { shutDown = true }
            }
        }
        return nil
    }

    /// The answers must be the handler's, in order, then at most one of the server's own.
    private static func checkAnswers(_ bytes: [UInt8], calls: [Call]) -> String? {
        var position = 0
        var next = 0
        while position < bytes.count {
            guard let headEnd = find([13, 10, 13, 10], in: bytes, from: position) else {
                return cutShort(calls, next) ? nil : "an answer ends inside its head"
            }
            let lines = bytes[position..<headEnd].split(separator: 13).map { String(decoding: $0.drop { $0 == 10 }, as: UTF8.self) }
            let statusLine = lines[0]
            guard statusLine.hasPrefix("HTTP/1.1 "), statusLine.utf8.count >= 12,
                  let status = Int(statusLine.dropFirst(9).prefix(3))
            else { return "not a status line: \(statusLine)" }
            var fields: [(name: String, value: String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { return "a header line without a colon: \(line)" }
                fields.append((line[..<colon].lowercased(), String(line[line.index(after: colon)...].drop { $0 == " " })))
            }
            let field = { (name: String) in fields.first { $0.name == name }?.value }
            position = headEnd + 4
            if status == 100 { continue }
            guard let length = Int(field("content-length") ?? "0"), length >= 0 else { return "a bad Content-Length in an answer" }
            guard let call = field("x-call").flatMap(Int.init) else {
                if cutShort(calls, next) { return nil }
                guard [400, 408, 413, 431, 501, 505].contains(status) else { return "the server answered \(status) on its own" }
                guard field("connection") == "close" else { return "the server's own \(status) does not close" }
                guard position + length == bytes.count else { return "bytes follow the server's own \(status)" }
                return next == calls.count ? nil : "request \(next) got no answer before the server's own \(status)"
            }
            guard call == next, call < calls.count else { return "answer \(call) arrived when \(next) was due" }
            switch calls[call].reply {
            case .respond(let wanted): guard status == wanted else { return "answer \(call) has status \(status), not \(wanted)" }
            case .truncate: return call == calls.count - 1 ? nil : "requests were served after a cut answer"
            case .close: return "an answer was sent for a request answered by closing"
            }
            next += 1
            let bodyLength = calls[call].method == "HEAD" || status == 204 || status == 304 ? 0 : length
            guard position + bodyLength <= bytes.count else { return "answer \(call) has a short body" }
            position += bodyLength
        }
        if next < calls.count {
            switch calls[next].reply {
            case .close, .truncate: return next == calls.count - 1 ? nil : "requests were served after a close"
            case .respond: return "request \(next) got no answer"
            }
        }
        return nil
    }

    /// Whether the last call asked for its answer to be cut (so the bytes may stop anywhere).
    private static func cutShort(_ calls: [Call], _ next: Int) -> Bool {
        guard next == calls.count - 1 else { return false }
        if case .truncate = calls[next].reply { return true }
        return false
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
