import LibBase
import LibJSON
import LibNet

/// How a push's writes go to one server (docs/PUSH.md, "Batches"): in
/// protocol-v2 batches when the server speaks v2, else one request each
/// (v1), all through one `LibraryWriter` (one connection).
///
/// It learns the server's protocol once, unless the account's store
/// remembers it; groups writes into batches within the server's limits of
/// items and bytes; halves a batch whose answer was too large to read; goes
/// back to v1 when the server has no batches (any more); and forgets the
/// protocol after a 413, so that the next push learns the limits again. No
/// request starts once asked to stop, or at the deadline.
public struct BatchingWriter {
    /// One write, as either protocol would send it.
    public struct Write {
        public var item: WriteItem
        /// What a v1 PUT sends: the intent applied to the version it goes
        /// against (worked out only when the write goes as v1).
        public var document: () -> JSONObject?
        /// It goes as v1 whatever the server speaks: it was first sent as v1
        /// (the server's record of its key is of a v1 request), or v2 cannot
        /// carry it (a change or a delete without the version it goes
        /// against: the server's 428 rejects it as before).
        public var onlyAsV1: Bool

        public init(item: WriteItem, document: @escaping () -> JSONObject?, onlyAsV1: Bool = false) {
            self.item = item
            self.document = document
            self.onlyAsV1 = onlyAsV1
        }
    }

    /// Why a write was not sent.
    public enum Hold: Sendable, Equatable {
        /// `stopRequested` said so.
        case stopRequested
        /// The deadline came before the request.
        case outOfTime
    }

    /// What became of one write.
    public enum Reply: Sendable {
        case answered(WriteAnswer)
        case notSent(Hold)

        /// Nothing more is sent after it.
        public var stopsSending: Bool {
            guard case .answered(let answer) = self else { return true }
            return answer.stopsSending
        }
    }

    /// What the account's store knows of the server's protocol, and how to
    /// change it.
    public struct ProtocolMemory {
        /// What the store holds, if it is recent enough to trust.
        public var known: ServerCapabilities?
        public var remember: (ServerCapabilities) -> Void
        public var forget: () -> Void

        public init(known: ServerCapabilities?, remember: @escaping (ServerCapabilities) -> Void = { _ in },
                    forget: @escaping () -> Void = {}) {
            self.known = known
            self.remember = remember
            self.forget = forget
        }
    }

    public let writer: LibraryWriter
    /// No request starts once `clock` reaches it (`push --wait`); nil: no limit.
    public let deadline: Double?
    private let clock: () -> Double
    private let stopRequested: () -> Bool
    private var memory: ProtocolMemory
    /// nil until `prepare`.
    private var capabilities: ServerCapabilities?
    /// Halved when a batch's answer was too large for lib to read.
    private var largest = ServerCapabilities.largestBatch

    /// `deadline` is an instant of `clock`, the monotonic clock but in
    /// tests; each request's timeouts are capped to it as well.
    public init(api: ServerAPI, rules: BookRules, memory: ProtocolMemory, deadline: Double? = nil,
                confirmsMassChange: Bool = false,
                clock: @escaping () -> Double = MonotonicClock.now, stopRequested: @escaping () -> Bool = { false }) {
        var api = api
        api.deadline = deadline
        var writer = LibraryWriter(api: api, rules: rules)
        writer.confirmsMassChange = confirmsMassChange
        self.writer = writer
        self.memory = memory
        self.deadline = deadline
        self.clock = clock
        self.stopRequested = stopRequested
    }

    /// The protocol writes go with once `prepare` has learnt it.
    public var wireProtocol: String { capabilities?.batchWrites == nil ? "v1" : "v2" }

    /// How many writes one request may carry.
    public var batchLimit: Int { capabilities?.batchWrites.map { min($0.maxItems, largest) } ?? 1 }

    /// Learns the server's protocol unless the store knows it: nil when
    /// writes can be sent. Without an answer nothing is sent: a write sent
    /// once keeps its protocol, so a guess could tie a whole outbox to one
    /// request per write.
    public mutating func prepare() -> Reply? {
        if let known = memory.known {
            capabilities = known
            return nil
        }
        if let hold = holdBeforeRequest() { return .notSent(hold) }
        switch ServerCapabilities.discover(writer.api) {
        case .success(let found):
            capabilities = found
            memory.remember(found)
            return nil
        case .failure(let failure):
            if case .unauthorized = failure.kind { return .answered(.unauthorized(failure)) }
            return .answered(.temporary(failure))
        }
    }

    /// One reply per write, in order, up to the first that stops sending;
    /// the writes of a batch all get theirs, even after one that stops.
    public mutating func send(_ writes: [Write]) -> [Reply] {
        guard let limits = capabilities?.batchWrites else { return sendEach(writes) }
        var replies: [Reply] = []
        var group: [Write] = []
        var groupBytes = 0
        /// Sends the group; false when nothing more may be sent.
        func flush() -> Bool {
            defer { group = []; groupBytes = 0 }
            guard !group.isEmpty else { return true }
            let answered = sendAsBatch(group)
            replies += answered
            return answered.count == group.count && !answered.contains { $0.stopsSending }
        }
        for write in writes {
            guard !write.onlyAsV1 else {
                guard flush() else { return replies }
                let reply = send(write)
                replies.append(reply)
                if reply.stopsSending { return replies }
                continue
            }
            let size = write.item.json.utf8Bytes.count + 1
            let overBudget = groupBytes + size + Self.envelopeBytes > limits.maxBytes
            if !group.isEmpty && (overBudget || group.count >= limits.maxItems) {
                guard flush() else { return replies }
            }
            group.append(write)
            groupBytes += size
        }
        _ = flush()
        return replies
    }

    /// One write as a v1 request.
    public func send(_ write: Write) -> Reply {
        if let hold = holdBeforeRequest() { return .notSent(hold) }
        return .answered(writer.send(write.item, document: write.document()))
    }

    /// `{"writes":[` and `]}`.
    private static let envelopeBytes = 16

    /// One request for the group, or, when its answer was too large to read,
    /// halves of it (their keys replay what the first request applied).
    private mutating func sendAsBatch(_ group: [Write]) -> [Reply] {
        if let hold = holdBeforeRequest() { return [.notSent(hold)] }
        switch writer.send(batch: group.map(\.item)) {
        case .answered(let answers):
            return answers.map { .answered($0) }
        case .notSupported:
            memory.forget()
            capabilities = .v1Only
            return sendEach(group)
        case .failed(let answer):
            if case .temporary(let failure) = answer, case .answerTooLarge = failure.kind, group.count > 1 {
                let half = group.count / 2
                largest = max(1, half)
                let first = sendAsBatch(Array(group[..<half]))
                guard first.count == half, !first.contains(where: \.stopsSending) else { return first }
                return first + sendAsBatch(Array(group[half...]))
            }
            if case .temporary(let failure) = answer, case .serverError(413, _, _) = failure.kind {
                memory.forget()  // the limits changed: learn them again at the next push
            }
            // Every write of the batch shares its fate; each is kept, sent or not.
            return group.map { _ in .answered(answer) }
        }
    }

    /// One by one, up to the first that stops sending.
    private func sendEach(_ writes: [Write]) -> [Reply] {
        var replies: [Reply] = []
        for write in writes {
            let reply = send(write)
            replies.append(reply)
            if reply.stopsSending { break }
        }
        return replies
    }

    private func holdBeforeRequest() -> Hold? {
        if stopRequested() { return .stopRequested }
        if let deadline, clock() >= deadline { return .outOfTime }
        return nil
    }
}
