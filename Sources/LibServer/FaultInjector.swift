import LibHTTPServer
import Synchronization

/// The faults in force, and what each has already done (how many times it
/// fired, which idempotency keys it has seen). Off unless rules are given.
final class FaultInjector: Sendable {
    private struct Armed {
        var rule: FaultRule
        var fired = 0
        var seenKeys: Set<String> = []
    }

    /// When a rule is consulted. A delay happens at the start of a read, but
    /// inside a write's in-flight window (so that a second request with the
    /// same key meets it in flight).
    enum Moment {
        case start(isWrite: Bool), beforeWrite, beforeCommit, afterCommit, answer

        var words: String {
            switch self {
            case .start: "at the start"
            case .beforeWrite: "before the write"
            case .beforeCommit: "before the commit"
            case .afterCommit: "after the commit"
            case .answer: "at the answer"
            }
        }
    }

    private let armed: Mutex<[Armed]>
    /// No rule in force (the usual case): a request then takes no lock here.
    private let none: Atomic<Bool>
    /// `--verbose`'s log: "fault RULE fires before the commit of POST /v2/writes",
    /// so that a test can act while the server is inside a fault.
    private let log: @Sendable (String) -> Void

    init(_ rules: [FaultRule], log: @escaping @Sendable (String) -> Void = { _ in }) {
        armed = Mutex(rules.map { Armed(rule: $0) })
        none = Atomic(rules.isEmpty)
        self.log = log
    }

    func replace(with rules: [FaultRule]) {
        armed.withLock { armed in
            armed = rules.map { Armed(rule: $0) }
            none.store(rules.isEmpty, ordering: .releasing)
        }
    }

    var rules: [FaultRule] { armed.withLock { $0.map(\.rule) } }

    /// No rule is in force.
    var isOff: Bool { none.load(ordering: .acquiring) }

    /// The first rule of this kind that matches the request and still has a
    /// firing left; counts it as fired. `keys`: the idempotency keys the
    /// request carries (a v2 batch's items'); by default its header's. A
    /// first-per-key rule fires for a request with a key it has not seen.
    func fire(_ moment: Moment, for request: HTTPRequest, keys: [String]? = nil) -> FaultRule? {
        if none.load(ordering: .acquiring) { return nil }
        let keys = keys ?? request.headers["Idempotency-Key"].map { [$0] } ?? []
        let fired = armed.withLock { armed -> FaultRule? in
            for i in armed.indices {
                let rule = armed[i].rule
                guard Self.applies(rule.action, at: moment) else { continue }
                if let method = rule.method, method != request.method { continue }
                if let prefix = rule.pathPrefix, !request.path.hasPrefix(prefix) { continue }
                if let times = rule.times, armed[i].fired >= times { continue }
                if rule.firstPerKey {
                    guard !keys.allSatisfy(armed[i].seenKeys.contains) else { continue }
                    armed[i].seenKeys.formUnion(keys)
                }
                armed[i].fired += 1
                return rule
            }
            return nil
        }
        if let fired { log("fault \(fired.description) fires \(moment.words) of \(request.method) \(request.path)") }
        return fired
    }

    private static func applies(_ action: FaultRule.Action, at moment: Moment) -> Bool {
        switch (action, moment) {
        case (.status, .start), (.delay, .start(isWrite: false)): return true
        case (.dropBeforeWrite, .beforeWrite), (.delay, .beforeWrite): return true
        case (.dropAfterCommit, .afterCommit), (.holdAfterCommit, .afterCommit), (.holdBeforeCommit, .beforeCommit): return true
        case (.truncate, .answer): return true
        default: return false
        }
    }
}
