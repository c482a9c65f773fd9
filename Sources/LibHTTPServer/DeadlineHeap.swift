/// A loop's deadlines, soonest first: one entry per connection at most, for
/// the soonest deadline it has had since it was last looked at. A later
/// deadline (a kept-alive connection's next idle timeout) pushes nothing:
/// its entry is checked when it comes due and pushed again then, so that a
/// busy connection costs no heap operation per request.
struct DeadlineHeap {
    struct Entry {
        let due: UInt64
        let connection: UInt64
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var soonest: UInt64? { entries.first?.due }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].due < entries[parent].due else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if entries.isEmpty { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].due < entries[smallest].due { smallest = left }
            if right < entries.count && entries[right].due < entries[smallest].due { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
