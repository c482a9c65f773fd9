import LibBase
import Synchronization

/// Which connections one event loop takes in, and which it lets go to make
/// room. The counts every loop shares (`ConnectionAdmission`) say whether
/// there is room; when there is none, the connection that has waited
/// longest for the bytes of a request, on any loop, is cut off for the new
/// one. The loop's queue of waiting connections is kept here.
final class LoopAdmission: @unchecked Sendable {
    // @unchecked: other loops' threads read only `publishedOldestWaiting`;
    // the rest is touched by the loop's own thread.
    enum Decision {
        /// Serve it: it holds one of the places.
        case serve
        /// No place: serve it only to tell it 503, drained before the close
        /// so that the peer reads it.
        case answerFull
        /// Send this answer at once and close, without a wait.
        case refuse(status: Int, detail: String)
        /// Another loop makes room (its longest wait is longer).
        case handOver(to: EventLoop, LoopInbox.Arrival)
    }

    /// Connections over the limit that are told 503 on this loop at once,
    /// drained; beyond that they are refused without a wait.
    static let maxFullAnswers = 32

    private let counts: ConnectionAdmission
    private let limits: HTTPServerLimits
    private var waiting = WaitingQueue()
    private var nextTicket: UInt64 = 0
    private var fullAnswers = 0
    /// When this loop's longest-waiting connection began to wait (0: none),
    /// as of the loop's last turn: where a full loop looks for the
    /// connection that has waited longest on any loop.
    private let publishedOldestWaiting = Atomic<UInt64>(0)

    init(counts: ConnectionAdmission, limits: HTTPServerLimits) {
        self.counts = counts
        self.limits = limits
    }

    /// Whether `loop` takes a new connection from `peer`, and how.
    func decide(peer: String, arrival: LoopInbox.Arrival, on loop: EventLoop) -> Decision {
        var verdict = counts.admit(peer)
        if verdict == .full {
            if let (other, handed) = loopToMakeRoom(for: arrival, on: loop) { return .handOver(to: other, handed) }
            verdict = cutOffLongestWaiting(makingRoomFor: peer, on: loop)
        }
        switch verdict {
        case .admitted:
            return .serve
        case .peerOverLimit:
            // Without a wait: this peer is the one crowding the server.
            return .refuse(status: 429, detail: "this address has \(limits.maxConnectionsPerPeer) connections open already; close some or try again later")
        case .full:
            guard fullAnswers < Self.maxFullAnswers else { return .refuse(status: 503, detail: Self.fullDetail) }
            fullAnswers += 1
            return .answerFull
        }
    }

    static let fullDetail = "the server has too many open connections; try again later"

    /// A closed connection's place is free again, unless `placeGiven` to another.
    func closed(_ connection: LoopConnection, placeGiven: Bool) {
        if connection.countsAgainstLimit {
            if !placeGiven { counts.release(connection.peer) }
        } else {
            fullAnswers -= 1
        }
    }

    /// The connection begins to wait for the bytes of a request (or, draining, for the peer's end of file).
    func startWaiting(_ connection: LoopConnection, since now: UInt64, on loop: EventLoop) {
        nextTicket += 1
        connection.waitTicket = nextTicket
        waiting.append(WaitingQueue.Entry(connection: connection.id, ticket: nextTicket, since: now),
                       liveCount: loop.connectionCount, isLive: { isLive($0, on: loop) })
    }

    /// Shows the other loops how long this loop's longest wait is, as of now.
    func publishOldestWaiting(on loop: EventLoop) {
        publishedOldestWaiting.store(oldestWaiting(on: loop)?.since ?? 0, ordering: .relaxed)
    }

    private func oldestWaiting(on loop: EventLoop) -> WaitingQueue.Entry? {
        waiting.oldest(isLive: { isLive($0, on: loop) })
    }

    private func isLive(_ entry: WaitingQueue.Entry, on loop: EventLoop) -> Bool {
        loop.connection(entry.connection)?.waitTicket == entry.ticket
    }

    /// A full server makes room by cutting off the connection that has
    /// waited longest for the bytes of a request, on any loop: peers that
    /// open connections and never finish a request (from many addresses,
    /// each under its per-peer cap) then cannot keep ordinary clients out,
    /// and a client that has just connected is not the one cut off. When
    /// that connection is another loop's, the new one is handed to that
    /// loop, which cuts off one of its own that waited longer than this
    /// loop's longest, or else hands the new one back (the other loops'
    /// longest waits are known as of their last turn); at most three hops.
    /// Nil: this loop makes the room.
    private func loopToMakeRoom(for arrival: LoopInbox.Arrival, on loop: EventLoop) -> (EventLoop, LoopInbox.Arrival)? {
        let ownLongest = oldestWaiting(on: loop)?.since ?? .max
        switch arrival {
        case .accepted:
            var longest = ownLongest
            var found: EventLoop?
            for other in loop.otherLoops {
                let since = other.admission.publishedOldestWaiting.load(ordering: .relaxed)
                if since != 0 && since < longest {
                    longest = since
                    found = other
                }
            }
            return found.map { ($0, .handedOver(by: loop, longestThere: ownLongest)) }
        case .handedOver(let sender, let longestThere):
            return ownLongest < longestThere || longestThere == .max ? nil : (sender, .handedBack(by: loop))
        case .handedBack(let sender):
            // Its own have gone meanwhile: the other loop cuts off its own.
            return ownLongest != .max ? nil : (sender, .handedOver(by: loop, longestThere: .max))
        }
    }

    /// Cuts off this loop's longest-waiting connection and gives its place
    /// to a new one from `peer` (at once: another loop cannot take it
    /// between the two).
    private func cutOffLongestWaiting(makingRoomFor peer: String, on loop: EventLoop) -> ConnectionAdmission.Verdict {
        while let entry = oldestWaiting(on: loop), let connection = loop.connection(entry.connection) {
            // Its bytes may be in the socket already, the loop not yet at its
            // event (a client that just connected, under a flood): read them
            // first; a request they finish is not cut off.
            loop.readWaitingBytes(connection)
            guard isLive(entry, on: loop) else { continue }
            guard connection.countsAgainstLimit else {
                waiting.removeOldest()
                continue
            }
            let verdict = counts.transfer(from: connection.peer, to: peer)
            if verdict == .admitted {
                waiting.removeOldest()
                loop.close(connection, placeGiven: true)
            }
            return verdict
        }
        // Those it read from may have ended and let go of their places.
        return counts.admit(peer)
    }

    /// Out of descriptors: closes this loop's connection that has waited
    /// longest for the bytes of a request (as a full server does), so that
    /// a crowd of slow clients cannot stop the server from accepting. False
    /// when none waits.
    func cutOffLongestWaitingForDescriptor(on loop: EventLoop) -> Bool {
        while let entry = oldestWaiting(on: loop), let connection = loop.connection(entry.connection) {
            loop.readWaitingBytes(connection)
            guard isLive(entry, on: loop) else { continue }
            waiting.removeOldest()
            loop.close(connection)
            return true
        }
        return false
    }

    /// A refusal's bytes: `status` with a problem body, `Retry-After: 1`, `Connection: close`.
    static func refusal(status: Int, detail: String) -> [UInt8] {
        var headers = HTTPHeaders()
        headers.add("Retry-After", RetryAfter(seconds: 1).headerValue)
        let response = HTTPResponse.problem(status: status, detail: detail, headers: headers)
        return ResponseSerializer.serialize(response, headOnly: false, connection: "close")
    }
}
