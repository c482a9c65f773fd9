import LibSync
import LibBase

/// An account's outbox counts, read without creating or migrating anything
/// (a missing store has nothing pending). Used where speed matters: `lib
/// status` in shell prompts, `lib switch`.
struct OutboxSummary: Equatable {
    var pending = 0
    var conflicts = 0
    var rejected = 0
    /// Books changed on the server and not pulled (`ServerContact`): not
    /// the outbox's, but shown with its counts in the prompt.
    var behind = 0

    static func read(storePath: String) -> OutboxSummary {
        readIfPresent(storePath: storePath) ?? OutboxSummary()
    }

    init(pending: Int = 0, conflicts: Int = 0, rejected: Int = 0, behind: Int = 0) {
        self.pending = pending
        self.conflicts = conflicts
        self.rejected = rejected
        self.behind = behind
    }

    init(_ counts: (pending: Int, conflicts: Int, rejected: Int), behind: Int = 0) {
        self.init(pending: counts.pending, conflicts: counts.conflicts, rejected: counts.rejected, behind: behind)
    }

    /// The store's counts and what it was last told it is behind by.
    init(_ store: AccountStore) throws {
        self.init(try store.outbox.counts(), behind: try store.contact.heard().behind ?? 0)
    }

    /// The counts, or nil when the store cannot be read.
    static func readIfPresent(storePath: String) -> OutboxSummary? {
        guard let store = try? AccountStore(readingFrom: storePath) else { return nil }
        return try? OutboxSummary(store)
    }

    var isEmpty: Bool { pending + conflicts + rejected == 0 }

    /// "3 pending, 1 conflict" or "up to date".
    var phrase: String {
        var parts: [String] = []
        if pending > 0 { parts.append("\(pending) pending") }
        if conflicts > 0 { parts.append(Wording.count(conflicts, "conflict")) }
        if rejected > 0 { parts.append("\(rejected) rejected") }
        return parts.isEmpty ? "up to date" : parts.joined(separator: ", ")
    }
}

extension OutboxSummary {
    /// Every write of the account's outbox, oldest first, read without
    /// creating or migrating anything (a missing store has none).
    static func writes(storePath: String) -> [WriteDescription] {
        guard let store = try? AccountStore(readingFrom: storePath), let items = try? store.outbox.all() else { return [] }
        return items.map(WriteDescription.init)
    }
}
