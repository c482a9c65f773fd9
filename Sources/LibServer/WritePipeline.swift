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
    func write(_ items: [(WriteItem, KeyHold)], on db: any SQLConnection,
               beforeCommit: () -> Void = {}) throws -> [Settled] {
        let settled: [Settled]
        do { settled = try writeTransaction(items, on: db, beforeCommit: beforeCommit) } catch {
            outcomes?.count(.failed, items.count)
            throw error
        }
        settled.forEach(count)
        return settled
    }

    private func writeTransaction(_ items: [(WriteItem, KeyHold)], on db: any SQLConnection,
                                  beforeCommit: () -> Void) throws -> [Settled] {
        try store.write(on: db) {
            let now = clock.now()
            try IdempotencyLedger.prune(at: now, in: db)
            // Every book of the batch locked first, in one order, so that
            // two batches never wait for each other in a cycle.
            for id in Set(items.map(\.0.id)).sorted() { try db.lock("book " + id) }
            var books = BooksInHand()
            if let rule = massChangeGuard,
               let problem = try MassChangeCheck.problem(items.map(\.0), guard: rule, liveBooks: { Int(try BookStore.liveCount(in: db)) },
                                                         book: { try books.record($0, in: db) }) {
                // Thrown inside the transaction: it rolls back, nothing of the request is applied.
                throw ProblemError(problem)
            }
            var changes: [ChangeLog.Change] = []
            let settled = try items.map { item, hold in
                try settle(item, holding: hold, books: &books, changes: &changes, at: now, in: db)
            }
            try ChangeLog.record(changes, by: device, at: now, retention: changeRetention, in: db)
            beforeCommit()
            return settled
        }
    }

    private func settle(_ item: WriteItem, holding hold: KeyHold, books: inout BooksInHand, changes: inout [ChangeLog.Change],
                        at now: Double, in db: any SQLConnection) throws -> Settled {
        let claim: String
        switch hold {
        case .claimHere:
            switch keyClaim(try IdempotencyLedger.claim(user: user.id, key: item.key, requestHash: item.requestHash,
                                                        holding: .transaction, at: now, in: db)) {
            case .ours(let id): claim = id
            case .settled(let settled): return settled
            }
        case .claimed(let id):
            // A claim whose lock went with a lost connection may have been taken over: then the other write decides.
            guard try IdempotencyLedger.holds(id, user: user.id, key: item.key, in: db) else { return .refused(wire.keyInFlight) }
            claim = id
        }
        let book = try books.record(item.id, in: db)
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

/// The books a write transaction has read or written, as it left them:
/// each book is read from the table once, however many items write it.
private struct BooksInHand {
    private var known: [String: BookRecord?] = [:]

    mutating func record(_ id: String, in db: any SQLConnection) throws -> BookRecord? {
        if let book = known[id] { return book }
        let book = try BookStore.record(id, in: db)
        known[id] = .some(book)
        return book
    }

    mutating func wrote(_ book: BookRecord) {
        known[book.id] = .some(book)
    }
}
