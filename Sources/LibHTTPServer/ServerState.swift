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
        /// The peer's address without its port, as the per-peer cap counts it.
        let peer: String
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
    /// Open connections per peer address.
    var connectionsPerPeer: [String: Int] = [:]
    /// Threads answering 503 to connections over the limit.
    var overflowAnswers = 0

    mutating func add(_ id: Int, _ connection: OpenConnection) {
        connections[id] = connection
        connectionsPerPeer[connection.peer, default: 0] += 1
    }

    mutating func remove(_ id: Int) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        let left = (connectionsPerPeer[connection.peer] ?? 1) - 1
        connectionsPerPeer[connection.peer] = left > 0 ? left : nil
    }

    /// Cuts the connections off: blocked reads return end-of-file and writes fail.
    func shutDownConnections(idleOnly: Bool) {
        for connection in connections.values where !idleOnly || !connection.busy {
            _ = shutdown(connection.fd, Int32(SHUT_RDWR))
        }
    }
}
