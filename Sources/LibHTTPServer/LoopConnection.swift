#if canImport(Glibc)
import Glibc
#endif

/// One client connection on an event loop: the bytes received and not yet
/// consumed, the answer not yet sent, and where it is in its exchange.
/// Touched only by its loop's thread.
final class LoopConnection {
    enum Phase {
        /// Waiting for a request head: a new connection, or a kept-alive
        /// one between requests. `started`: its first byte has arrived.
        case awaitingHead(started: Bool)
        case readingBody(RequestHead, length: Int)
        /// The handler has the request (on a worker thread, or parked as a
        /// pending reply): the connection holds no thread and reads nothing.
        case handling(RequestHead)
        /// An answer is being sent; then `after`.
        case writing(after: AfterAnswer)
        /// Half-closed after an answer: what the peer still sends is read and
        /// dropped until it closes or the deadline passes (RFC 9112 §9.6).
        case draining
    }

    enum AfterAnswer {
        case nextRequest
        case closeGracefully
    }

    let id: UInt64
    let fd: Int32
    let remoteAddress: String
    let peer: String
    /// False for a connection accepted over the limit only to be told 503.
    let countsAgainstLimit: Bool
    var phase: Phase = .awaitingHead(started: false)
    /// No request has been read yet: waiting for the first one is bounded by
    /// the header timeout, not the (longer) keep-alive idle timeout.
    var isFresh = true
    /// From the first byte of a request until its answer is sent: stop()
    /// closes connections that are not busy at once and lets busy ones finish.
    var isBusy = false
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

    /// Received bytes; those before `consumed` are used up.
    var buffer: [UInt8] = []
    var consumed = 0
    /// How far the search for the end of the head has gone (an index in `buffer`).
    var scanned = 0
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

    init(id: UInt64, fd: Int32, remoteAddress: String, peer: String, countsAgainstLimit: Bool) {
        self.id = id
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.peer = peer
        self.countsAgainstLimit = countsAgainstLimit
    }

    var unconsumed: Int { buffer.count - consumed }

    /// Drops the consumed bytes once they are all there is, or a lot.
    func compact() {
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16 * 1024)
            scanned = 0
            consumed = 0
        } else if consumed > 64 * 1024 {
            buffer.removeFirst(consumed)
            scanned = max(0, scanned - consumed)
            consumed = 0
        }
    }
}
