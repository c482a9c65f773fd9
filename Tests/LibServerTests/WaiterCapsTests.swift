import LibHTTPServer
@testable import LibServer
import Testing

/// The change feed's waiters are capped per user, per peer and in all; a
/// new waiter over a cap displaces the longest-waiting one under that cap
/// (issue 47), never anyone else's.
@Suite struct WaiterCapsTests {
    @Test func theCapsAreHalfTheServersConnectionLimitsAnd64AUser() {
        var limits = HTTPServerLimits()
        #expect(WaiterCaps.Limits(connections: limits) == WaiterCaps.Limits(perUser: 64, perPeer: 32, overall: 512))
        limits.maxConnections = 20_000
        limits.maxConnectionsPerPeer = 1
        #expect(WaiterCaps.Limits(connections: limits) == WaiterCaps.Limits(perUser: 64, perPeer: 1, overall: 10_000))
    }

    @Test func aUserOverItsCapDisplacesItsOwnLongestWaiterOnly() {
        let caps = Caps(WaiterCaps.Limits(perUser: 3, perPeer: 100, overall: 100))
        #expect(caps.admit(1, user: "alice", peer: "10.0.0.1").isEmpty)
        #expect(caps.admit(2, user: "bob", peer: "10.0.0.1").isEmpty)
        #expect(caps.admit(3, user: "alice", peer: "10.0.0.2").isEmpty)
        #expect(caps.admit(4, user: "alice", peer: "10.0.0.3").isEmpty)
        #expect(caps.admit(5, user: "alice", peer: "10.0.0.3") == [1])
        #expect(caps.admit(6, user: "alice", peer: "10.0.0.3") == [3])
        #expect(caps.count == 4, "bob's waiter stays")
        #expect(caps.admit(7, user: "bob", peer: "10.0.0.1").isEmpty)
    }

    @Test func aPeerOverItsCapDisplacesItsOwnLongestWaiterWhoeverItServes() {
        let caps = Caps(WaiterCaps.Limits(perUser: 100, perPeer: 2, overall: 100))
        #expect(caps.admit(1, user: "alice", peer: "10.0.0.1").isEmpty)
        #expect(caps.admit(2, user: "carol", peer: "10.0.0.2").isEmpty)
        #expect(caps.admit(3, user: "bob", peer: "10.0.0.1").isEmpty)
        #expect(caps.admit(4, user: "carol", peer: "10.0.0.1") == [1])
        #expect(caps.admit(5, user: "carol", peer: "10.0.0.2").isEmpty)
    }

    @Test func theServerOverItsCapDisplacesTheLongestWaiterOfAll() {
        let caps = Caps(WaiterCaps.Limits(perUser: 100, perPeer: 100, overall: 3))
        for id: UInt64 in 1...3 { #expect(caps.admit(id, user: "u\(id)", peer: "p\(id)").isEmpty) }
        #expect(caps.admit(4, user: "u4", peer: "p4") == [1])
        #expect(caps.remove(2))
        #expect(caps.admit(5, user: "u5", peer: "p5").isEmpty, "a waiter that left made room")
        #expect(caps.admit(6, user: "u6", peer: "p6") == [3])
        #expect(caps.count == 3)
    }

    /// Over two caps at once: one waiter under each, the user's cap first.
    @Test func oneNewWaiterMayDisplaceOneUnderEachCap() {
        let caps = Caps(WaiterCaps.Limits(perUser: 2, perPeer: 2, overall: 4))
        #expect(caps.admit(1, user: "alice", peer: "b").isEmpty)
        #expect(caps.admit(2, user: "alice", peer: "c").isEmpty)
        #expect(caps.admit(3, user: "bob", peer: "a").isEmpty)
        #expect(caps.admit(4, user: "carol", peer: "a").isEmpty)
        #expect(caps.admit(5, user: "alice", peer: "a") == [1, 3])
        #expect(caps.count == 3)
        #expect(!caps.remove(1), "already let go")
    }

    @Test func aWaiterThatLeftIsNeverDisplacedAndTheOrderSurvivesManyDepartures() {
        let caps = Caps(WaiterCaps.Limits(perUser: 10_000, perPeer: 10_000, overall: 10))
        for id: UInt64 in 1...10 { _ = caps.admit(id, user: "u", peer: "p") }
        // Many come and go: the stale entries of the arrival order are compacted away.
        for id: UInt64 in 11...1_000 {
            #expect(caps.remove(id - 10))
            #expect(caps.admit(id, user: "u", peer: "p").isEmpty)
        }
        #expect(caps.admit(1_001, user: "u", peer: "p") == [991])
        #expect(caps.count == 10)
    }
}

/// The caps behind a reference, so that `#expect` can call their mutating methods.
private final class Caps {
    private var caps: WaiterCaps

    init(_ limits: WaiterCaps.Limits) { caps = WaiterCaps(limits: limits) }

    var count: Int { caps.count }
    func admit(_ id: UInt64, user: String, peer: String) -> [UInt64] { caps.admit(id, user: user, peer: peer) }
    func remove(_ id: UInt64) -> Bool { caps.remove(id) }
}
