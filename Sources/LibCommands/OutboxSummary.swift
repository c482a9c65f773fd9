import LibSync

/// An account's outbox counts, read without creating or migrating anything
/// (a missing store has nothing pending). Used where speed matters: `lib
/// status` in shell prompts, `lib switch`.
struct OutboxSummary: Equatable {
    var pending = 0
    var conflicts = 0
    var rejected = 0

    static func read(storePath: String) -> OutboxSummary {
        guard let store = try? AccountStore(readingFrom: storePath), let counts = try? store.outbox.counts() else {
            return OutboxSummary()
        }
        return OutboxSummary(pending: counts.pending, conflicts: counts.conflicts, rejected: counts.rejected)
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
