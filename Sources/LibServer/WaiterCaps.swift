import LibHTTPServer

/// How many change-feed requests may wait at once (`wait=S`): per user, per
/// peer address and in all, each below the server's own connection limits,
/// so that waiters never take the room ordinary requests need. A new waiter
/// over a cap is not refused: the longest-waiting one under that cap is
/// answered early instead (an empty page with its cursor, after which its
/// client simply asks again). Only bookkeeping: the caller answers.
struct WaiterCaps {
    struct Limits: Sendable, Equatable {
        var perUser = 64
        var perPeer: Int
        var overall: Int

        /// Half of the server's connection limits: the other half is always
        /// left to ordinary requests.
        init(connections: HTTPServerLimits) {
            perPeer = max(1, connections.maxConnectionsPerPeer / 2)
            overall = max(1, connections.maxConnections / 2)
        }

        init(perUser: Int, perPeer: Int, overall: Int) {
            self.perUser = perUser
            self.perPeer = perPeer
            self.overall = overall
        }
    }

    private struct Holder {
        let user: String
        let peer: String
    }

    let limits: Limits
    /// Every waiter, by id; ids grow with arrival, so a smaller id has waited longer.
    private var holders: [UInt64: Holder] = [:]
    /// Ids in arrival order, oldest first; ids removed since are skipped.
    private var order: [UInt64] = []
    private var orderStart = 0
    private var byUser: [String: [UInt64]] = [:]
    private var byPeer: [String: [UInt64]] = [:]

    init(limits: Limits) {
        self.limits = limits
    }

    var count: Int { holders.count }

    /// Takes in waiter `id` (larger than any before) and returns the ids it
    /// displaces, oldest first: they are no longer held, and are to be
    /// answered early.
    mutating func admit(_ id: UInt64, user: String, peer: String) -> [UInt64] {
        var displaced: [UInt64] = []
        while byUser[user, default: []].count >= limits.perUser, let oldest = byUser[user]?.first {
            remove(oldest)
            displaced.append(oldest)
        }
        while byPeer[peer, default: []].count >= limits.perPeer, let oldest = byPeer[peer]?.first {
            remove(oldest)
            displaced.append(oldest)
        }
        while holders.count >= limits.overall, let oldest = oldestOverall() {
            remove(oldest)
            displaced.append(oldest)
        }
        holders[id] = Holder(user: user, peer: peer)
        order.append(id)
        byUser[user, default: []].append(id)
        byPeer[peer, default: []].append(id)
        return displaced.sorted()
    }

    /// Lets go of waiter `id` (answered, or its client gone); false when it was not held.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        guard let holder = holders.removeValue(forKey: id) else { return false }
        Self.drop(id, under: holder.user, from: &byUser)
        Self.drop(id, under: holder.peer, from: &byPeer)
        // The arrival order is cleaned lazily: compacted once mostly stale.
        if order.count - orderStart > 2 * holders.count + 64 {
            order = order[orderStart...].filter { holders[$0] != nil }
            orderStart = 0
        }
        return true
    }

    private mutating func oldestOverall() -> UInt64? {
        while orderStart < order.count {
            let id = order[orderStart]
            if holders[id] != nil { return id }
            orderStart += 1
        }
        return nil
    }

    /// One user's or peer's list is at most its cap long: a linear search is cheap.
    private static func drop(_ id: UInt64, under key: String, from lists: inout [String: [UInt64]]) {
        guard var list = lists[key], let index = list.firstIndex(of: id) else { return }
        list.remove(at: index)
        lists[key] = list.isEmpty ? nil : list
    }
}
