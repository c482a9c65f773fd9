#if canImport(Glibc)
import Glibc
#endif

/// Everything about a server that its threads share, guarded by one mutex
/// in `HTTPServer`.
struct ServerState: Sendable {
    /// One open client connection. `busy` is true from the first byte of a
    /// request until its answer is sent: stop() closes idle connections at
    /// once and lets busy ones finish.
    struct OpenConnection: Sendable {
        let fd: Int32
        var busy: Bool
    }

    var listenFD: Int32?
    var address: String?
    var port: Int?
    var accepting = false
    var stopping = false
    var stopFinished = false
    var connections: [Int: OpenConnection] = [:]
    var nextConnectionID = 0
    /// Threads answering 503 to connections over the limit.
    var overflowAnswers = 0

    /// Cuts the connections off: blocked reads return end-of-file and writes fail.
    func shutDownConnections(idleOnly: Bool) {
        for connection in connections.values where !idleOnly || !connection.busy {
            _ = shutdown(connection.fd, Int32(SHUT_RDWR))
        }
    }
}
