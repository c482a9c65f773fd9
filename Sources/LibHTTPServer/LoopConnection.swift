#if canImport(Glibc)
import Glibc
#endif

/// One client connection on an event loop: its socket's state, the answer
/// not yet sent, and its HTTP exchange (`machine`). Touched only by its
/// loop's thread.
final class LoopConnection {
    let id: UInt64
    let fd: Int32
    let peer: String
    /// False for a connection accepted over the limit only to be told 503.
    let countsAgainstLimit: Bool
    let machine: HTTPConnectionMachine
    /// The peer has sent end-of-file: what it sent before is still served.
    var peerClosed = false
    /// Bytes may wait in the socket: epoll (edge-triggered) said so, or
    /// nothing has looked, since the last read that found none. Without it
    /// the loop does not ask (a read after each answer, which a client that
    /// waits for the answer has not yet followed, would find nothing).
    var mayHaveBytes = true
    /// epoll said the peer sends nothing more: its end of file may wait
    /// behind the bytes, with no edge of its own to come.
    var inputEnded = false
    /// Closed and forgotten by its loop: nothing may touch it any more.
    var isClosed = false

    var output: [UInt8] = []
    var outputSent = 0

    /// When the current wait ends (nanoseconds on the monotonic clock; 0: none).
    var deadline: UInt64 = 0
    /// The due time of this connection's entry in the loop's deadline heap (0: none).
    var scheduled: UInt64 = 0
    /// The connection's place in the loop's order of connections waiting for
    /// bytes of a request (0: not waiting), for the crowd eviction.
    var waitTicket: UInt64 = 0
    /// A reply the handler will give later (a waiting change feed).
    var pending: PendingReply?

    init(id: UInt64, fd: Int32, peer: String, countsAgainstLimit: Bool, machine: HTTPConnectionMachine) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.countsAgainstLimit = countsAgainstLimit
        self.machine = machine
    }

    enum Received { case bytes(Int), wouldBlock, endOfFile, failed }

    /// Reads what the socket has into `scratch` (up to its size).
    func receive(into scratch: inout [UInt8]) -> Received {
        if peerClosed { return .endOfFile }
        guard mayHaveBytes else { return .wouldBlock }
        while true {
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                // Less than asked for: the socket is empty now, and bytes that come later raise a new edge.
                if count < scratch.count && !inputEnded { mayHaveBytes = false }
                return .bytes(count)
            }
            if count == 0 {
                peerClosed = true
                return .endOfFile
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                mayHaveBytes = false
                return .wouldBlock
            default: return .failed
            }
        }
    }
}
