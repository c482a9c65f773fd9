import Synchronization

/// The connection counts every loop shares: how many are open, and from
/// which peer addresses. Taken when a connection opens or closes, never per
/// request.
final class ConnectionAdmission: Sendable {
    enum Verdict { case admitted, peerOverLimit, full }

    private struct Counts {
        var open = 0
        var perPeer: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let maxConnections: Int
    private let maxPerPeer: Int

    init(limits: HTTPServerLimits) {
        maxConnections = limits.maxConnections
        maxPerPeer = limits.maxConnectionsPerPeer
    }

    var openCount: Int { counts.withLock { $0.open } }

    /// Counts the connection in when there is room for it.
    func admit(_ peer: String) -> Verdict {
        counts.withLock { counts in
            if counts.perPeer[peer, default: 0] >= maxPerPeer { return .peerOverLimit }
            if counts.open >= maxConnections { return .full }
            counts.open += 1
            counts.perPeer[peer, default: 0] += 1
            return .admitted
        }
    }

    /// Gives the place of a connection being cut off to a new one from `peer`.
    func transfer(from cutOff: String, to peer: String) -> Verdict {
        counts.withLock { counts in
            if counts.perPeer[peer, default: 0] >= maxPerPeer { return .peerOverLimit }
            counts.perPeer[peer, default: 0] += 1
            Self.remove(cutOff, from: &counts)
            counts.open += 1
            return .admitted
        }
    }

    func release(_ peer: String) {
        counts.withLock { Self.remove(peer, from: &$0) }
    }

    private static func remove(_ peer: String, from counts: inout Counts) {
        counts.open -= 1
        let left = (counts.perPeer[peer] ?? 1) - 1
        counts.perPeer[peer] = left > 0 ? left : nil
    }
}
