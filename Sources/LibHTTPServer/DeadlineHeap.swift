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

extension DeadlineHeap {
    /// Sets the connection's deadline; an entry is pushed only when it is
    /// sooner than the one the connection has in the heap.
    mutating func schedule(_ connection: LoopConnection, due: UInt64) {
        connection.deadline = due
        if connection.scheduled == 0 || due < connection.scheduled {
            push(Entry(due: due, connection: connection.id))
            connection.scheduled = due
        }
    }

    /// The next connection whose deadline has passed by `now` (its deadline
    /// cleared); entries for later deadlines are pushed again as they come up.
    mutating func nextExpired(now: UInt64, in connections: [UInt64: LoopConnection]) -> LoopConnection? {
        while let due = soonest, due <= now, let entry = pop() {
            guard let connection = connections[entry.connection], connection.scheduled == entry.due else { continue }
            connection.scheduled = 0
            guard connection.deadline != 0 else { continue }
            if connection.deadline > now {
                push(Entry(due: connection.deadline, connection: connection.id))
                connection.scheduled = connection.deadline
                continue
            }
            connection.deadline = 0
            return connection
        }
        return nil
    }
}
