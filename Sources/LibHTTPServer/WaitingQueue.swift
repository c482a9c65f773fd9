/// One event loop's connections waiting for bytes of a request, in the
/// order they began to wait. An entry whose connection has moved on (it
/// carries another ticket now) is dropped when met, so that finding the
/// connection that has waited longest costs no scan of them all.
struct WaitingQueue {
    struct Entry {
        let connection: UInt64
        let ticket: UInt64
        /// When it began to wait (the loops' monotonic nanoseconds).
        let since: UInt64
    }

    private var entries: [Entry] = []
    private var start = 0

    /// Adds a connection that begins to wait; `liveCount` bounds how many
    /// stale entries may pile up before they are swept out.
    mutating func append(_ entry: Entry, liveCount: Int, isLive: (Entry) -> Bool) {
        entries.append(entry)
        if entries.count - start > 2 * liveCount + 1024 {
            entries = entries[start...].filter(isLive)
            start = 0
        }
    }

    /// The live entry that has waited longest.
    mutating func oldest(isLive: (Entry) -> Bool) -> Entry? {
        while start < entries.count {
            if isLive(entries[start]) { return entries[start] }
            start += 1
        }
        entries.removeAll(keepingCapacity: true)
        start = 0
        return nil
    }

    /// Drops the entry `oldest` returned.
    mutating func removeOldest() {
        start += 1
        if start > 4096 && start > entries.count / 2 {
            entries.removeFirst(start)
            start = 0
        }
    }
}
