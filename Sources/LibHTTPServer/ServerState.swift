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
        /// Waiting for a request head (a new connection, or a kept-alive one
        /// between requests): what a full server may close to make room.
        var awaitingHead = true
        /// When it began to wait (a ticket from `waitTickets`).
        var waitingSince = 0
        var evicted = false
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
    /// Connections that began to wait for a request head, oldest first, as
    /// (id, ticket): an entry whose connection has moved on since (its
    /// ticket is another) is skipped, so that finding the oldest waiting
    /// connection costs no scan of them all.
    var waitingOrder: [(id: Int, ticket: Int)] = []
    var waitingOrderStart = 0
    var waitTickets = 0
    /// Connections cut off to make room whose threads have not ended yet:
    /// they still count in `connections`, but not against the limit.
    var evicting = 0

    mutating func add(_ id: Int, _ connection: OpenConnection) {
        connections[id] = connection
        connectionsPerPeer[connection.peer, default: 0] += 1
        startWaitingForHead(id)
    }

    /// Marks the connection as waiting for a request head, the newest to wait.
    mutating func startWaitingForHead(_ id: Int) {
        guard let connection = connections[id], !connection.evicted else { return }
        waitTickets += 1
        connections[id]?.awaitingHead = true
        connections[id]?.waitingSince = waitTickets
        waitingOrder.append((id, waitTickets))
        // Stale entries pile up as requests come and go: keep only the live ones.
        if waitingOrder.count - waitingOrderStart > 2 * connections.count + 1024 {
            waitingOrder = waitingOrder[waitingOrderStart...].filter { entry in
                connections[entry.id].map { $0.awaitingHead && !$0.evicted && $0.waitingSince == entry.ticket } ?? false
            }
            waitingOrderStart = 0
        }
    }

    mutating func remove(_ id: Int) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        if connection.evicted { evicting -= 1 }
        let left = (connectionsPerPeer[connection.peer] ?? 1) - 1
        connectionsPerPeer[connection.peer] = left > 0 ? left : nil
    }

    /// Makes room for a new connection in a full server by cutting off the
    /// connection that has waited longest for a request head; false when
    /// every connection is in the middle of a request. Peers that open
    /// connections and never finish a head (from many addresses, each under
    /// its per-peer cap) then cannot keep ordinary clients out: a client
    /// that sends its request at once is never the oldest waiting (40 peers
    /// holding 60 such connections each got 58 of 60 ordinary requests a
    /// 503, issue 23). The evicted connection's thread sees end-of-file.
    mutating func evictLongestWaitingForHead() -> Bool {
        while waitingOrderStart < waitingOrder.count {
            let entry = waitingOrder[waitingOrderStart]
            waitingOrderStart += 1
            guard let connection = connections[entry.id], connection.awaitingHead, !connection.evicted,
                  connection.waitingSince == entry.ticket else { continue }
            evict(entry.id, connection)
            if waitingOrderStart > 4096 && waitingOrderStart > waitingOrder.count / 2 {
                waitingOrder.removeFirst(waitingOrderStart)
                waitingOrderStart = 0
            }
            return true
        }
        waitingOrder.removeAll(keepingCapacity: true)
        waitingOrderStart = 0
        return false
    }

    private mutating func evict(_ id: Int, _ connection: OpenConnection) {
        connections[id]?.awaitingHead = false
        connections[id]?.evicted = true
        _ = shutdown(connection.fd, Int32(SHUT_RDWR))
        evicting += 1
    }

    /// Cuts the connections off: blocked reads return end-of-file and writes fail.
    func shutDownConnections(idleOnly: Bool) {
        for connection in connections.values where !idleOnly || !connection.busy {
            _ = shutdown(connection.fd, Int32(SHUT_RDWR))
        }
    }
}
