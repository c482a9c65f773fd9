import LibBase

/// The server's answer to one outbox item, as a push received it.
public struct OutboxAnswer: Sendable, Equatable {
    public let seq: Int64
    public let outcome: WriteOutcome

    public init(seq: Int64, outcome: WriteOutcome) {
        self.seq = seq
        self.outcome = outcome
    }
}

/// Answers a push has received but not yet recorded, written to the store
/// together (one commit, one fsync) once there are `limit.writes` of them or
/// the oldest has waited `limit.seconds`.
///
/// Holding answers in memory is safe because every write carries its
/// idempotency key: after a crash the next push sends an unrecorded write
/// again with the same key and the server replays the answer it recorded,
/// applying nothing twice. Until they are recorded, the batch also answers
/// for them: the version a later write of the same path goes against (the
/// one the previous answer gave, see `Chain`), and the paths a 412, a
/// rejection or a clash holds back.
struct AnswerBatch {
    struct Limit: Sendable {
        var writes: Int
        var seconds: Double
    }

    let limit: Limit
    private(set) var answers: [OutboxAnswer] = []
    private var chained: [String: Chain.Version] = [:]
    private var held: Set<String> = []
    private var oldest: Double?

    init(limit: Limit) { self.limit = limit }

    /// Takes an answer in (received at monotonic time `at`), with what it
    /// means for later writes of its path.
    mutating func add(_ answer: OutboxAnswer, for item: OutboxItem, at time: Double) {
        if oldest == nil { oldest = time }
        answers.append(answer)
        switch answer.outcome {
        case .applied(let document, let etag, _): chained[item.path] = Chain.Version(after: item, document: document, etag: etag)
        case .conflict, .rejected: held.insert(item.path)
        case .unauthorized, .temporary: break
        }
    }

    /// Whether a 412 or a rejection not yet recorded holds this path back.
    func holds(_ path: String) -> Bool { held.contains(path) }

    /// The item as it must be sent: against the version the previous write
    /// of its path left, when that answer is still in memory. A clash holds
    /// the path back; recording the previous answer makes it a conflict.
    mutating func prepared(_ item: OutboxItem) -> OutboxItem? {
        guard let version = chained[item.path] else { return item }
        switch Chain.next(item, after: version) {
        case .send(let rebased):
            return rebased
        case .clash:
            held.insert(item.path)
            return nil
        }
    }

    /// Whether the answers must be recorded now (monotonic time `now`).
    func isDue(at now: Double) -> Bool {
        guard let oldest else { return false }
        return answers.count >= limit.writes || now - oldest >= limit.seconds
    }

    /// Once recorded, the store says all the batch knew.
    mutating func clear() {
        answers.removeAll(keepingCapacity: true)
        chained.removeAll(keepingCapacity: true)
        held.removeAll(keepingCapacity: true)
        oldest = nil
    }
}
