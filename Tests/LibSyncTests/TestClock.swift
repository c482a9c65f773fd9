import LibBase
import LibJSON
import LibSync

/// The time LibSync's tests run at: LibSync reads no clock of its own, so
/// its tests give one, fixed, and move it on where a test needs time to pass.
enum TestClock {
    nonisolated(unsafe) static var now: UnixSeconds = 1_800_000_000
}

/// The store's operations at the test clock's time.
extension Outbox {
    @discardableResult
    func enqueue(_ write: NewWrite) throws -> EnqueueOutcome { try enqueue(write, now: TestClock.now) }
    func claimSendable(sendingWith wireProtocol: String = "v1") throws { try claimSendable(sendingWith: wireProtocol, now: TestClock.now) }
    func recordFailure(seq: Int64, error: String, sent: Bool) throws { try recordFailure(seq: seq, error: error, sent: sent, now: TestClock.now) }
    func recordSuccess(seq: Int64, document: String?, etag: String?) throws {
        try recordSuccess(seq: seq, document: document, etag: etag, now: TestClock.now)
    }
    func recordConflict(seq: Int64, theirsBody: String?, theirsETag: String?) throws {
        try recordConflict(seq: seq, theirsBody: theirsBody, theirsETag: theirsETag, now: TestClock.now)
    }
    func recordRejection(seq: Int64, problem: String) throws { try recordRejection(seq: seq, problem: problem, now: TestClock.now) }
    func advance(_ item: OutboxItem, onto version: Chain.Version) throws -> Chain.Next { try advance(item, onto: version, now: TestClock.now) }
    @discardableResult
    func record(_ answers: [OutboxAnswer], failure: Failure? = nil, finished: Bool = false) throws -> [OutboxItem] {
        try record(answers, failure: failure, finished: finished, now: TestClock.now)
    }
    @discardableResult
    func record(_ answers: [OutboxAnswer], failures: [Failure], finished: Bool = false) throws -> [OutboxItem] {
        try record(answers, failures: failures, finished: finished, now: TestClock.now)
    }
    func requeue(seq: Int64, intent: WriteIntent, baseBody: String?, baseETag: String?) throws {
        try requeue(seq: seq, intent: intent, baseBody: baseBody, baseETag: baseETag, now: TestClock.now)
    }
}

extension Settlement {
    func settle(on result: JSONObject?) throws -> Outcome { try settle(on: result, now: TestClock.now) }
    func replace(with document: JSONObject) throws { try replace(with: document, now: TestClock.now) }
    func dropAll() throws { try dropAll(now: TestClock.now) }
}

extension SetAsideOutboxes {
    func setAside(from store: AccountStore, identityKey key: String) throws -> Int {
        try setAside(from: store, identityKey: key, now: TestClock.now)
    }
}

extension PushRun {
    func run<Sender: WriteSender>(with sender: inout Sender, answered: (Int) -> Void = { _ in }) throws
        -> (report: PushReport, failure: Sender.Failure?) {
        try run(with: &sender, now: { TestClock.now }, answered: answered)
    }
}
