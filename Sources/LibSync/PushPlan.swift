/// What `lib push` would do now (`push --dry-run`): each write of the
/// outbox in the order a push takes them, and whether it would be sent or
/// waits. Read from the outbox alone: nothing is sent, claimed or changed.
public struct PushPlan: Sendable, Equatable {
    public enum Step: Sendable, Equatable {
        /// Sent, with this precondition.
        case send(OutboxItem, Precondition)
        /// A conflict or a rejected write: it waits for `lib resolve`.
        case needsResolving(OutboxItem)
        /// Waits behind the conflict or rejected write of its path (its `seq`).
        case waitsBehind(OutboxItem, blocker: Int64)

        public var item: OutboxItem {
            switch self {
            case .send(let item, _), .needsResolving(let item), .waitsBehind(let item, _): return item
            }
        }
    }

    public enum Precondition: Sendable, Equatable {
        /// A create: `If-None-Match: *`.
        case create
        /// `If-Match` this ETag.
        case ifMatch(String)
        /// Against the version the answer to the write before it (of the same path) gives.
        case afterPrevious
        /// No version known (a write lib cannot send unconditionally; the server answers 428).
        case none
    }

    public let steps: [Step]

    /// The plan for the outbox's items, given in send order.
    public init(items: [OutboxItem]) {
        var blockers: [String: Int64] = [:]
        var steps: [Step] = []
        var seen: Set<String> = []
        for item in items {
            defer { seen.insert(item.path) }
            if let blocker = blockers[item.path] {
                steps.append(item.status == .pending ? .waitsBehind(item, blocker: blocker) : .needsResolving(item))
                continue
            }
            guard item.status == .pending else {
                blockers[item.path] = item.seq
                steps.append(.needsResolving(item))
                continue
            }
            let precondition: Precondition
            if item.createOnly {
                precondition = .create
            } else if let etag = item.ifMatch {
                precondition = .ifMatch(etag)
            } else if seen.contains(item.path) {
                precondition = .afterPrevious
            } else {
                precondition = .none
            }
            steps.append(.send(item, precondition))
        }
        self.steps = steps
    }

    /// The writes a push would send.
    public var sendCount: Int { steps.filter { if case .send = $0 { return true } else { return false } }.count }
}
