import Foundation
import Glibc

/// A real TCP peer on loopback that answers each request with canned bytes,
/// for failures a well-behaved server never produces on demand.
public final class ScriptedPeer: @unchecked Sendable {
    /// What to do with one request.
    public enum Reply: Sendable {
        /// Send these bytes and keep the connection for the next request.
        case send([UInt8])
        /// Send these bytes (maybe none), then close the connection.
        case sendAndClose([UInt8])
        /// Never answer; wait until the client gives up and closes.
        case hang
        /// Send `head`, then `count` bytes of `filler` in chunks (never all
        /// in memory), then close: an answer as large as a test needs.
        case stream(head: [UInt8], filler: UInt8, count: Int)
    }

    public let port: UInt16
    public let host: String
    private let listener: Int32
    private let log = PeerLog()
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// Listens on `host` ("127.0.0.1" or "::1") at `port` (0: a free one)
    /// and answers request number N (counted across connections) with
    /// `script(N, request)`.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, script: @escaping @Sendable (Int, String) -> Reply) throws {
        self.host = host
        // getaddrinfo makes the socket address of either family (a numeric
        // host, so nothing is looked up).
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found?.pointee else {
            throw PeerError.socket(EINVAL)
        }
        defer { freeaddrinfo(found) }
        let fd = socket(address.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PeerError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let listening = bind(fd, address.ai_addr, address.ai_addrlen) == 0 && listen(fd, 16) == 0
            && withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
            }
        guard listening else { close(fd); throw PeerError.socket(errno) }
        // sin_port and sin6_port are both at offset 2, in network order.
        let boundPort = UInt16(bigEndian: withUnsafeBytes(of: bound) { $0.load(fromByteOffset: 2, as: UInt16.self) })
        listener = fd
        self.port = boundPort
        // The threads hold the log, never the peer, so that releasing the
        // peer closes the listener and ends them.
        let log = self.log
        let ended = acceptLoopEnded
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 {
                    ended.signal()
                    return
                }
                log.connectionAccepted()
                Thread.detachNewThread {
                    Self.serve(connection, log: log, script: script)
                }
            }
        }
    }

    /// The URL of this peer with `path`, e.g. "http://127.0.0.1:40123/".
    public func url(_ path: String = "/", scheme: String = "http") -> String {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return "\(scheme)://\(authority)\(path)"
    }

    /// Every request received so far (head and body), in order.
    public var receivedRequests: [String] { log.requests }

    /// How many TCP connections were accepted.
    public var acceptedConnections: Int { log.connections }

    deinit {
        // shutdown() wakes the blocked accept(); the descriptor is closed only
        // after the loop ended, so it can never accept on a reused number.
        shutdown(listener, Int32(SHUT_RDWR))
        acceptLoopEnded.wait()
        close(listener)
    }

    private static func serve(_ connection: Int32, log: PeerLog, script: @Sendable (Int, String) -> Reply) {
        defer { close(connection) }
        var pending: [UInt8] = []
        while let request = readRequest(connection, buffer: &pending) {
            switch script(log.requestReceived(request), request) {
            case .send(let bytes):
                writeAll(connection, bytes)
            case .sendAndClose(let bytes):
                writeAll(connection, bytes)
                return
            case .hang:
                var byte: UInt8 = 0
                while recv(connection, &byte, 1, 0) > 0 {}
                return
            case .stream(let head, let filler, let count):
                guard writeAll(connection, head) else { return }
                let chunk = [UInt8](repeating: filler, count: 64 * 1024)
                var left = count
                while left > 0 {
                    guard writeAll(connection, Array(chunk.prefix(left))) else { return }
                    left -= min(left, chunk.count)
                }
                return
            }
        }
    }

    /// Reads one request (head, then a Content-Length body), or whatever
    /// arrived if it is not HTTP; nil at EOF.
    private static func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> String? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            // Not HTTP at all (a TLS ClientHello starts with 0x16): hand it to
            // the script as it is, as a plain HTTP server would answer it.
            if let first = buffer.first, !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            if let end = buffer.firstRange(of: separator) {
                let head = String(decoding: buffer[..<end.upperBound], as: UTF8.self)
                var length = 0
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if buffer.count >= end.upperBound + length {
                    let request = String(decoding: buffer[..<(end.upperBound + length)], as: UTF8.self)
                    buffer.removeFirst(end.upperBound + length)
                    return request
                }
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// False when the client went away first.
    @discardableResult
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    public enum PeerError: Error { case socket(Int32) }
}

/// What a peer received, shared with its threads.
private final class PeerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    private var accepted = 0

    var requests: [String] { lock.withLock { received } }
    var connections: Int { lock.withLock { accepted } }

    func connectionAccepted() { lock.withLock { accepted += 1 } }

    /// Records a request and returns its number, counted from 1.
    func requestReceived(_ request: String) -> Int {
        lock.withLock {
            received.append(request)
            return received.count
        }
    }
}

/// A canned HTTP/1.1 response.
public func httpResponse(_ status: Int, _ reason: String, headers: [String] = [], body: String = "") -> [UInt8] {
    let head = (["HTTP/1.1 \(status) \(reason)", "Content-Length: \(body.utf8.count)"] + headers)
        .joined(separator: "\r\n")
    return Array((head + "\r\n\r\n" + body).utf8)
}
