import Foundation

/// One HTTP response as read off the wire by `HTTPTestClient`.
public struct HTTPTestResponse: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body decoded as UTF-8.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

public enum HTTPTestClientError: Error {
    case connectFailed(String)
    case connectionClosed
    case timedOut
    case malformedResponse(String)
}

/// A blocking raw-socket HTTP/1.1 client for tests: keeps one connection open
/// across requests, and can send arbitrary bytes to probe a server's parser.
public final class HTTPTestClient: @unchecked Sendable {
    // @unchecked: every access to the socket and buffer holds `lock`.
    private let lock = NSLock()
    private var fd: Int32
    private let hostHeader: String
    private var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 10) throws {
        var literal = host
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal == "localhost" { literal = "127.0.0.1" }
        hostHeader = literal.contains(":") ? "[\(literal)]:\(port)" : "\(literal):\(port)"
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(literal, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let info = list?.pointee else {
            throw HTTPTestClientError.connectFailed("\(hostHeader): \(String(cString: gai_strerror(status)))")
        }
        fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestClientError.connectFailed("\(hostHeader): socket: \(Self.errorText())") }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.towardZero)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var connected: Int32
        repeat { connected = connect(fd, info.ai_addr, info.ai_addrlen) } while connected != 0 && errno == EINTR
        guard connected == 0 else {
            let message = "\(hostHeader): \(Self.errorText())"
            Glibc.close(fd)
            fd = -1
            throw HTTPTestClientError.connectFailed(message)
        }
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Sends a request (adds Host, and Content-Length when a body is given) and reads the answer.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil
    ) throws -> HTTPTestResponse {
        try exchange(method, target, headers: headers, body: body.map { Array($0.utf8) })
    }

    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], bodyBytes: [UInt8]
    ) throws -> HTTPTestResponse {
        try exchange(method, target, headers: headers, body: bodyBytes)
    }

    public func sendRaw(_ bytes: [UInt8]) throws {
        lock.lock(); defer { lock.unlock() }
        try sendLocked(bytes)
    }

    /// Reads one response (Content-Length framing; 1xx are skipped; 204/304 have no body).
    public func readResponse() throws -> HTTPTestResponse {
        lock.lock(); defer { lock.unlock() }
        return try readResponseLocked(isHead: false)
    }

    /// Reads one response to a HEAD request: no body whatever Content-Length says.
    public func readHeadResponse() throws -> HTTPTestResponse {
        lock.lock(); defer { lock.unlock() }
        return try readResponseLocked(isHead: true)
    }

    /// Every byte the server sends until it closes the connection (or the timeout).
    public func readUntilClosed() throws -> [UInt8] {
        lock.lock(); defer { lock.unlock() }
        while true {
            switch receiveLocked() {
            case .data: continue
            case .closed:
                defer { buffer.removeAll() }
                return buffer
            case .timedOut: throw HTTPTestClientError.timedOut
            }
        }
    }

    /// True when the server has closed the connection (read returns 0, or
    /// the connection was reset, within the timeout). Bytes that arrive
    /// meanwhile are kept for `readResponse`.
    public func isClosedByPeer(timeout: Double = 2) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard fd >= 0 else { return true }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(max(1, remaining * 1000)))
            if polled < 0 && errno == EINTR { continue }
            if polled <= 0 { return false }
            switch receiveLocked() {
            case .data: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    /// The bytes that arrive within `timeout` seconds (and shortly after the
    /// first of them), unparsed; for checking interim answers and raw output.
    public func readAvailable(timeout: Double = 2) -> [UInt8] {
        lock.lock(); defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while fd >= 0 {
            let wait = buffer.isEmpty ? deadline.timeIntervalSinceNow : 0.05
            if wait <= 0 { break }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Int32(max(1, wait * 1000)))
            if polled < 0 && errno == EINTR { continue }
            if polled <= 0 { break }
            guard case .data = receiveLocked() else { break }
        }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Half-closes: the server sees end-of-file while the client can still read.
    public func shutdownWrite() {
        lock.lock(); defer { lock.unlock() }
        if fd >= 0 { shutdown(fd, Int32(SHUT_WR)) }
    }

    public func close() {
        lock.lock(); defer { lock.unlock() }
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    // MARK: Internals (callers hold the lock)

    private func exchange(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) throws -> HTTPTestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: \(hostHeader)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body, !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        lock.lock(); defer { lock.unlock() }
        try sendLocked(Array(head.utf8) + (body ?? []))
        return try readResponseLocked(isHead: method == "HEAD")
    }

    private func sendLocked(_ bytes: [UInt8]) throws {
        guard fd >= 0 else { throw HTTPTestClientError.connectionClosed }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw HTTPTestClientError.timedOut
            } else {
                throw HTTPTestClientError.connectionClosed
            }
        }
    }

    private enum Received { case data, closed, timedOut }

    private func receiveLocked() -> Received {
        guard fd >= 0 else { return .closed }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return .data
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .closed  // ECONNRESET and friends: the peer is gone.
            }
        }
    }

    private func receiveMoreLocked() throws {
        switch receiveLocked() {
        case .data: return
        case .closed: throw HTTPTestClientError.connectionClosed
        case .timedOut: throw HTTPTestClientError.timedOut
        }
    }

    private func readResponseLocked(isHead: Bool) throws -> HTTPTestResponse {
        while true {
            let response = try readOneLocked(isHead: isHead)
            if !(100..<200).contains(response.status) { return response }
        }
    }

    private func readOneLocked(isHead: Bool) throws -> HTTPTestResponse {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        var searchFrom = 0
        while headEnd == nil {
            if buffer.count >= 4 && searchFrom <= buffer.count - 4 {
                for index in searchFrom...(buffer.count - 4) where buffer[index..<(index + 4)].elementsEqual(terminator) {
                    headEnd = index
                    break
                }
                searchFrom = max(0, buffer.count - 3)
            }
            if headEnd == nil { try receiveMoreLocked() }
        }
        guard let headEnd else { throw HTTPTestClientError.malformedResponse("no end of head") }
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), parts[1].count == 3 else {
            throw HTTPTestClientError.malformedResponse("status line: \(statusLine)")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPTestClientError.malformedResponse("header line: \(line)")
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        buffer.removeFirst(headEnd + 4)
        let response = HTTPTestResponse(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || (100..<200).contains(status) {
            return response
        }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else {
                throw HTTPTestClientError.malformedResponse("Content-Length: \(lengthText)")
            }
            while buffer.count < length { try receiveMoreLocked() }
            let body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            return HTTPTestResponse(status: status, headers: headers, body: body)
        }
        // No Content-Length: the body runs to the end of the connection.
        while true {
            switch receiveLocked() {
            case .data: continue
            case .closed:
                defer { buffer.removeAll() }
                return HTTPTestResponse(status: status, headers: headers, body: buffer)
            case .timedOut: throw HTTPTestClientError.timedOut
            }
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
