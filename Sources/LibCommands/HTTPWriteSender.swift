import LibBase
import LibClient
import LibJSON
import LibNet
import LibSync

/// The push's sender: outbox items as the `WriteItem`s LibClient's
/// `BatchingWriter` sends (in protocol-v2 batches when the server speaks v2,
/// else one by one as v1, over one connection for the whole push), and each
/// reply as the sync core's `WriteOutcome`, with what stopped it
/// (`PushStop`). It stops before a request once asked to or past the deadline.
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
        /// The server's mass-change guard refused the batch: nothing of it was applied.
        case massChangeRefused(MassChangeRefusal)
    }

    /// What the account's store knows of the server's protocol, and how to
    /// change it (`StoredServerDocument`).
    typealias ProtocolMemory = BatchingWriter.ProtocolMemory

    /// Updates under the whole-version rule (`push --strict`, `LIB_STRICT_WRITES=1`).
    let strict: Bool
    let explainer: FailureExplainer
    private var wire: BatchingWriter

    init(api: ServerAPI, rules: BookRules, deadline: Double?, explainer: FailureExplainer, strict: Bool = false,
         memory: ProtocolMemory = ProtocolMemory(known: .v1Only), confirmsMassChange: Bool = false,
         stopRequested: @escaping () -> Bool = { false }) {
        wire = BatchingWriter(api: api, rules: rules, memory: memory, deadline: deadline, confirmsMassChange: confirmsMassChange,
                              stopRequested: stopRequested)
        self.explainer = explainer
        self.strict = strict
    }

    var wireProtocol: String { wire.wireProtocol }

    var batchLimit: Int { wire.batchLimit }

    mutating func prepare() -> (WriteOutcome, PushStop?)? {
        guard let reply = wire.prepare() else { return nil }
        return outcome(of: reply)
    }

    mutating func send(batch items: [OutboxItem]) -> [(WriteOutcome, PushStop?)] {
        let replies = wire.send(items.map { write(for: $0) })
        return replies.map { outcome(of: $0) }
    }

    func send(_ item: OutboxItem) -> (WriteOutcome, PushStop?) {
        outcome(of: wire.send(write(for: item)))
    }

    /// The write as LibClient sends it. A write first sent as v1, or one v2
    /// cannot carry, goes as v1; a PUT sends the intent applied to the
    /// version it goes against.
    private func write(for item: OutboxItem) -> BatchingWriter.Write {
        BatchingWriter.Write(item: writeItem(for: item), document: { item.documentToSend },
                             onlyAsV1: item.sentWith == "v1" || !Self.batchCarries(item))
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

    private func outcome(of reply: BatchingWriter.Reply) -> (WriteOutcome, PushStop?) {
        switch reply {
        case .answered(let answer):
            return outcome(of: answer)
        case .notSent(.stopRequested):
            return (.temporary(reason: "not sent: the push was stopped", retryAfter: nil, sent: false), .stopped)
        case .notSent(.outOfTime):
            return (.temporary(reason: "the time given with --wait ran out", retryAfter: nil, sent: false), .outOfTime)
        }
    }

    private func outcome(of answer: WriteAnswer) -> (WriteOutcome, PushStop?) {
        switch answer {
        case .applied(let document, let etag, let merged): return (.applied(document: document, etag: etag, merged: merged), nil)
        case .conflict(let theirs, let etag): return (.conflict(theirs: theirs, etag: etag), nil)
        case .rejected(let problem): return (.rejected(problem: problem), nil)
        case .refusedMassChange(let problem):
            // Not sent in effect: the server applied none of it, so no key of it is known there.
            let refusal = MassChangeRefusal(destructive: problem.destructive, books: problem.books, allowed: problem.allowed,
                                            byServer: true, at: 0)
            return (.temporary(reason: "refused by the server's mass-change guard", retryAfter: nil, sent: false),
                    .massChangeRefused(refusal))
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
