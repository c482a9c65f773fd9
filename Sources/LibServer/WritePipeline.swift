import Foundation
import LibBase
import LibBookSchema

/// The one way books are written, for both protocols: a v1 `PUT` or
/// `DELETE` is a batch of one item, a `POST /v2/writes` a batch of many.
/// One transaction for the batch: its books locked in one order, each item
/// settled in turn (its key's record replayed, or the item decided by
/// `WriteVerdict`, applied and recorded with its outcome), the change feed
/// written last (`ChangeLog.record`), then one commit.
struct WritePipeline {
    let store: ServerStore
    let user: User
    let wire: WriteWire
    let schema: BookSchema
    let clock: ServerClock
    let changeRetention: TimeInterval
    /// The writing device (`Lib-Device`), recorded with its changes.
    var device: String?
    /// The mass-change guard the items are held to together (a v2 batch
    /// without `Lib-Confirm-Mass-Change`); nil: none.
    var massChangeGuard: MassChangeGuard?
    /// Where what became of each item is counted (`GET /metrics`).
    var outcomes: WriteOutcomeCounts?

    /// How an item's idempotency key is held while it is applied.
    enum KeyHold {
        /// Claimed in the write's own transaction (a batch).
        case claimHere
        /// Claimed before, in a transaction of its own, under this claim
        /// (a v1 request, whose claim other requests see while it runs).
        case claimed(String)
    }

    /// What became of an item.
    enum Settled {
        /// Its outcome, recorded for its key now or before (`replayed`).
        case answered(RecordedAnswer, replayed: Bool)
        /// A problem not recorded for the key: 409, 422.
        case refused(Problem)
    }

    /// Before any transaction, as a request's body is checked before its
    /// key is claimed: a whole document against the schema.
    func problemBeforeWriting(_ item: WriteItem) -> Problem? {
        guard case .put(let document, _) = item.change else { return nil }
        let problems = schema.problems(in: document, id: item.id)
        guard !problems.isEmpty else { return nil }
        outcomes?.count(.rejected)
        return .invalidBook(problems)
    }

    /// Counts what became of an item (`lib_server_writes_total`).
    func count(_ settled: Settled) {
        guard let outcomes else { return }
        switch settled {
        case .refused: outcomes.count(.rejected)
        case .answered(_, replayed: true): outcomes.count(.replayed)
        case .answered(let answer, replayed: false):
            outcomes.count(answer.status == 412 ? .conflict : answer.status == 404 ? .notFound : .applied)
        }
    }

    /// A key's claim: the write's to apply, or settled without anything applied.
    enum KeyClaim {
        case ours(claim: String)
        case settled(Settled)
    }

    func keyClaim(_ claim: IdempotencyLedger.Claim) -> KeyClaim {
        switch claim {
        case .claimed(let id): .ours(claim: id)
        case .replay(let answer): .settled(.answered(answer, replayed: true))
        case .keyReusedWithAnotherRequest: .settled(.refused(wire.keyReused))
        case .inFlight: .settled(.refused(wire.keyInFlight))
        }
    }

    /// Settles the items in order in one write transaction on `db`, and
    /// runs `beforeCommit` (fault injection) when all is written.
    ///
    /// On PostgreSQL in two round trips whatever the count (statements sent
    /// together, `SQLConnection.send`): the first locks the books and the
    /// keys to claim, and reads them; the second writes every item, then
    /// the change feed, and commits. An update merged over newer versions
    /// reads their history: one more.
    func write(_ items: [(WriteItem, KeyHold)], on db: any SQLConnection,
               beforeCommit: () throws -> Void = {}) throws -> [Settled] {
        let settled: [Settled]
        do { settled = try writeTransaction(items, on: db, beforeCommit: beforeCommit) } catch {
            outcomes?.count(.failed, items.count)
            throw error
        }
        settled.forEach(count)
        return settled
    }

    private func writeTransaction(_ items: [(WriteItem, KeyHold)], on db: any SQLConnection,
                                  beforeCommit: () throws -> Void) throws -> [Settled] {
        try store.write(on: db) {
            let now = clock.now()
            try IdempotencyLedger.prune(at: now, in: db)
            // Every book of the batch locked first, in one order, so that
            // two batches never wait for each other in a cycle.
            let ids = Set(items.map(\.0.id)).sorted()
            for id in ids { try db.lock("book " + id) }
            let toClaim = items.indices.filter { if case .claimHere = items[$0].1 { true } else { false } }
            let attempts = try IdempotencyLedger.attempt(
                toClaim.map { IdempotencyLedger.Request(key: items[$0].0.key, requestHash: items[$0].0.requestHash,
                                                        claim: KeyClaimHolder.newClaim(for: .transaction, in: db)) },
                user: user.id, holding: .transaction, at: now, in: db)
            var keys = KeysInHand(attempts: attempts, items: toClaim)
            for (item, hold) in items {
                guard case .claimed(let claim) = hold else { continue }
                try KeyClaimHolder.handOver(user: user.id, key: item.key, in: db)
                keys.held[item.key] = try IdempotencyLedger.holds(claim, user: user.id, key: item.key, in: db)
            }
            var books = BooksInHand(read: try BookStore.records(ids, in: db))
            if let rule = massChangeGuard,
               let problem = try MassChangeCheck.problem(items.map(\.0), guard: rule, liveBooks: { Int(try BookStore.liveCount(in: db)) },
                                                         book: { try books.record($0) }) {
                // Thrown inside the transaction: it rolls back, nothing of the request is applied.
                throw ProblemError(problem)
            }
            var changes: [ChangeLog.Change] = []
            let settled = try items.indices.map { index in
                try settle(items[index], at: index, keys: &keys, books: &books, changes: &changes, at: now, in: db)
            }
            try ChangeLog.record(changes, by: device, at: now, retention: changeRetention, in: db)
            try beforeCommit()
            return settled
        }
    }

    private func settle(_ entry: (WriteItem, KeyHold), at index: Int, keys: inout KeysInHand, books: inout BooksInHand,
                        changes: inout [ChangeLog.Change], at now: Double, in db: any SQLConnection) throws -> Settled {
        let (item, hold) = entry
        let claim: String
        switch hold {
        case .claimHere:
            guard let request = keys.requests[index] else { preconditionFailure("a batch's item claimed without an attempt") }
            let decided = try keys.attempts.decide(request, at: now)
            let claimed = if case .takeOver = decided {
                try IdempotencyLedger.takeOver(keys.attempts.requests[request], user: user.id, at: now, in: db)
            } else {
                decided.claim
            }
            switch keyClaim(claimed) {
            case .ours(let id): claim = id
            case .settled(let settled): return settled
            }
        case .claimed(let id):
            // A claim whose lock went with a lost connection may have been taken over: then the other write decides.
            guard try keys.held[item.key]?.rows().isEmpty == false else { return .refused(wire.keyInFlight) }
            claim = id
        }
        let book = try books.record(item.id)
        let outcome: WriteOutcome
        switch WriteVerdict.of(item, against: book, schema: schema) {
        case .invalid(let problems):
            try IdempotencyLedger.release(claim, user: user.id, key: item.key, in: db)
            return .refused(.invalidBook(problems))
        case .notFound:
            outcome = .notFound
        case .preconditionFailed(let failure):
            outcome = .preconditionFailed(failure)
        case .write(let document, let status, let mergedOver):
            let merged = try mergedOver.map { try MergeNote.since($0, book: item.id, in: db) }
            let written = try BookStore.write(item.id, document: document, over: book, by: user.id, at: now, in: db)
            books.wrote(written)
            changes.append(ChangeLog.Change(id: item.id, deleted: document == nil))
            outcome = .written(written, status: status, merged: merged)
        }
        let answer = wire.recorded(outcome, of: item)
        try IdempotencyLedger.record(claim, user: user.id, key: item.key, answer: answer, in: db)
        return .answered(answer, replayed: false)
    }
}

/// The keys of a write transaction: the attempt that claims its batch's
/// keys together, and what each v1 claim's check answered.
private struct KeysInHand {
    let attempts: IdempotencyLedger.Attempts
    /// Each item's request in the attempt, by the item's index.
    let requests: [Int: Int]
    var held: [String: SQLAnswer] = [:]

    /// `items[n]`: the item of the attempt's request `n`.
    init(attempts: IdempotencyLedger.Attempts, items: [Int]) {
        self.attempts = attempts
        requests = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1, $0) })
    }
}

/// The books a write transaction has read or written, as it left them:
/// the books are read from the table once, together, however many items
/// write them.
private struct BooksInHand {
    private let read: () throws -> [String: BookRecord]
    private var known: [String: BookRecord?]?

    init(read: @escaping () throws -> [String: BookRecord]) { self.read = read }

    mutating func record(_ id: String) throws -> BookRecord? {
        if known == nil { known = try read().mapValues { .some($0) } }
        return known?[id] ?? nil
    }

    mutating func wrote(_ book: BookRecord) {
        known?[book.id] = .some(book)
    }
}
