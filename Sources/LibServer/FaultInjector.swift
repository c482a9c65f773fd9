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
    enum Moment { case start(isWrite: Bool), beforeWrite, beforeCommit, afterCommit, answer }

    private let armed: Mutex<[Armed]>

    init(_ rules: [FaultRule]) { armed = Mutex(rules.map { Armed(rule: $0) }) }

    func replace(with rules: [FaultRule]) { armed.withLock { $0 = rules.map { Armed(rule: $0) } } }

    var rules: [FaultRule] { armed.withLock { $0.map(\.rule) } }

    /// The first rule of this kind that matches the request and still has a
    /// firing left; counts it as fired.
    func fire(_ moment: Moment, for request: HTTPRequest) -> FaultRule? {
        armed.withLock { armed in
            for i in armed.indices {
                let rule = armed[i].rule
                guard Self.applies(rule.action, at: moment) else { continue }
                if let method = rule.method, method != request.method { continue }
                if let prefix = rule.pathPrefix, !request.path.hasPrefix(prefix) { continue }
                if let times = rule.times, armed[i].fired >= times { continue }
                if rule.firstPerKey {
                    guard let key = request.headers["Idempotency-Key"], !armed[i].seenKeys.contains(key) else { continue }
                    armed[i].seenKeys.insert(key)
                }
                armed[i].fired += 1
                return rule
            }
            return nil
        }
    }

    private static func applies(_ action: FaultRule.Action, at moment: Moment) -> Bool {
        switch (action, moment) {
        case (.status, .start), (.delay, .start(isWrite: false)): return true
        case (.dropBeforeWrite, .beforeWrite), (.delay, .beforeWrite): return true
        case (.dropAfterCommit, .afterCommit), (.holdBeforeCommit, .beforeCommit): return true
        case (.truncate, .answer): return true
        default: return false
        }
    }
}
