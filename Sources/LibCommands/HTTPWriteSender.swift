import LibBase
import LibClient
import LibJSON
import LibNet
import LibSync

/// The push's sender: outbox items as protocol-v2 batches when the server
/// speaks v2, else one by one as v1 writes (both through `LibraryWriter`),
/// over one connection for the whole push; each answer as the sync core's
/// `WriteOutcome`, with what stopped it (`PushStop`). It stops before a
/// request once asked to or past the deadline.
struct HTTPWriteSender: WriteSender {
    /// Why a write was not done: what the push explains.
    enum PushStop: Sendable {
        /// `stopRequested` said so (SIGTERM or SIGHUP in `push --watch`).
        case stopped
        /// The time given with `--wait` ran out before the request.
        case outOfTime
        /// The request failed, or its answer was not the library server's:
        /// what happened, and its one explanation.
        case failed(TransportFailure, FailureExplanation)
    }

    /// What the account's store knows of the server's protocol, and how to
    /// change it (`StoredServerDocument`).
    struct ProtocolMemory {
        /// What the store holds, if it is recent enough to trust.
        var known: ServerCapabilities?
        var remember: (ServerCapabilities) -> Void = { _ in }
        var forget: () -> Void = {}
    }

    let writer: LibraryWriter
    /// No request starts after this instant (`push --wait`); nil: no limit.
    let deadline: Double?
    /// Asked before each request; true stops the pass.
    let stopRequested: () -> Bool
    /// Updates under the whole-version rule (`push --strict`, `LIB_STRICT_WRITES=1`).
    let strict: Bool
    let explainer: FailureExplainer
    private var memory: ProtocolMemory
    private var capabilities: ServerCapabilities?
    /// Halved when a batch's answer was too large for lib to read.
    private var largest = ServerCapabilities.largestBatch

    init(api: ServerAPI, rules: BookRules, deadline: Double?, explainer: FailureExplainer, strict: Bool = false,
         memory: ProtocolMemory = ProtocolMemory(known: .v1Only), stopRequested: @escaping () -> Bool = { false }) {
        self.explainer = explainer
        var api = api
        api.deadline = deadline
        writer = LibraryWriter(api: api, rules: rules)
        self.deadline = deadline
        self.strict = strict
        self.memory = memory
        self.stopRequested = stopRequested
    }

    var wireProtocol: String { capabilities?.batchWrites == nil ? "v1" : "v2" }

    var batchLimit: Int { capabilities?.batchWrites.map { min($0.maxItems, largest) } ?? 1 }

    /// Learns the server's protocol unless the store knows it. Without an
    /// answer nothing is sent: a write sent once keeps its protocol, so a
    /// guess could tie a whole outbox to one request per write.
    mutating func prepare() -> (WriteOutcome, PushStop?)? {
        if let known = memory.known {
            capabilities = known
            return nil
        }
        if let stop = stopBeforeRequest() { return stop }
        switch ServerCapabilities.discover(writer.api) {
        case .success(let found):
            capabilities = found
            memory.remember(found)
            return nil
        case .failure(let failure):
            if case .unauthorized = failure.kind { return (.unauthorized, .failed(failure, explainer.explain(failure))) }
            return outcome(of: .temporary(failure))
        }
    }

    mutating func send(batch items: [OutboxItem]) -> [(WriteOutcome, PushStop?)] {
        guard let limits = capabilities?.batchWrites else { return sendEach(items) }
        var results: [(WriteOutcome, PushStop?)] = []
        var group: [(OutboxItem, WriteItem)] = []
        var groupBytes = 0
        func flush() -> Bool {
            defer { group = []; groupBytes = 0 }
            guard !group.isEmpty else { return true }
            let answered = sendAsBatch(group)
            results += answered
            return answered.count == group.count && !answered.contains { $0.0.stopsThePass }
        }
        for item in items {
            // A write first sent as v1, or one v2 cannot express (no version
            // to go against: the server's 428 rejects it as before), goes as v1.
            guard item.sentWith != "v1", Self.batchCarries(item) else {
                guard flush() else { return results }
                let result = send(item)
                results.append(result)
                if result.0.stopsThePass { return results }
                continue
            }
            let batchItem = writeItem(for: item)
            let size = batchItem.json.utf8Bytes.count + 1
            if !group.isEmpty && groupBytes + size + Self.envelopeBytes > limits.maxBytes {
                guard flush() else { return results }
            }
            group.append((item, batchItem))
            groupBytes += size
        }
        _ = flush()
        return results
    }

    /// `{"writes":[` and `]}`.
    private static let envelopeBytes = 16

    /// One request for the group, or, when its answer was too large to read,
    /// halves of it (their keys replay what the first request applied).
    private mutating func sendAsBatch(_ group: [(OutboxItem, WriteItem)]) -> [(WriteOutcome, PushStop?)] {
        if let stop = stopBeforeRequest() { return [stop] }
        switch writer.send(batch: group.map(\.1)) {
        case .answered(let answers):
            return answers.map(outcome(of:))
        case .notSupported:
            memory.forget()
            capabilities = .v1Only
            return sendEach(group.map(\.0))
        case .failed(let answer):
            if case .temporary(let failure) = answer, case .answerTooLarge = failure.kind, group.count > 1 {
                largest = max(1, group.count / 2)
                let half = group.count / 2
                let first = sendAsBatch(Array(group[..<half]))
                guard first.count == half, !first.contains(where: { $0.0.stopsThePass }) else { return first }
                return first + sendAsBatch(Array(group[half...]))
            }
            if case .temporary(let failure) = answer, case .serverError(413, _, _) = failure.kind {
                memory.forget()  // the limits changed: learn them again at the next push
            }
            // Every write of the batch shares its fate; each is kept, sent or not.
            let shared = outcome(of: answer)
            return group.map { _ in shared }
        }
    }

    func send(_ item: OutboxItem) -> (WriteOutcome, PushStop?) {
        if let stop = stopBeforeRequest() { return stop }
        // A PUT sends the intent applied to the version it goes against.
        return outcome(of: writer.send(writeItem(for: item), document: item.documentToSend))
    }

    private func stopBeforeRequest() -> (WriteOutcome, PushStop?)? {
        if stopRequested() {
            return (.temporary(reason: "not sent: the push was stopped", retryAfter: nil, sent: false), .stopped)
        }
        if let deadline, MonotonicClock.now() >= deadline {
            return (.temporary(reason: "the time given with --wait ran out", retryAfter: nil, sent: false), .outOfTime)
        }
        return nil
    }

    /// Whether protocol v2 can carry the item: a change or delete needs the
    /// version it goes against.
    private static func batchCarries(_ item: OutboxItem) -> Bool {
        switch item.intent {
        case .create: return true
        case .delete: return item.ifMatch != nil
        case .change: return item.ifMatch != nil && item.base != nil
        }
    }

    private func writeItem(for item: OutboxItem) -> WriteItem {
        switch item.intent {
        case .create(let document):
            return WriteItem(key: item.idempotencyKey, path: item.path, intent: .create(document), ifMatch: nil)
        case .delete:
            return WriteItem(key: item.idempotencyKey, path: item.path, intent: .delete, ifMatch: item.ifMatch)
        case .change(let changes):
            var set = JSONObject()
            var remove: [String] = []
            var seen = JSONObject()
            for (name, value) in changes.fields {
                if let value { set[name] = value } else { remove.append(name) }
                if let before = item.base?[name] { seen[name] = before }
            }
            return WriteItem(key: item.idempotencyKey, path: item.path, intent: .update(set: set, remove: remove, seen: seen),
                             ifMatch: item.ifMatch, strict: strict)
        }
    }

    private func outcome(of answer: WriteAnswer) -> (WriteOutcome, PushStop?) {
        switch answer {
        case .applied(let document, let etag, let merged): return (.applied(document: document, etag: etag, merged: merged), nil)
        case .conflict(let theirs, let etag): return (.conflict(theirs: theirs, etag: etag), nil)
        case .rejected(let problem): return (.rejected(problem: problem), nil)
        case .unauthorized(let failure): return (.unauthorized, failure.map { .failed($0, explainer.explain($0)) })
        case .temporary(let failure):
            let retryAfter: RetryAfter?
            switch failure.kind {
            case .serverError(_, _, let after), .rateLimited(let after): retryAfter = after
            default: retryAfter = nil
            }
            let explanation = explainer.explain(failure)
            return (.temporary(reason: explanation.reason.token, retryAfter: retryAfter.map { Double($0.seconds) },
                               sent: failure.mayHaveReachedServer),
                    .failed(failure, explanation))
        }
    }
}
