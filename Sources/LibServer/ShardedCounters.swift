#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A row of counters that request threads add to with no lock: each
/// thread adds to the copy of its shard (picked by its thread id), with a
/// relaxed atomic add that other threads rarely touch; a scrape sums the
/// shards. What `RequestMetrics` and `WriteOutcomeCounts` count in.
final class ShardedCounters: @unchecked Sendable {
    // @unchecked: the slots are atomics, allocated once and freed in deinit.
    static let shardCount = 16
    /// Counters per shard, rounded up to whole cache lines (8 counters), so
    /// that two shards never share a line.
    private let stride: Int
    let count: Int
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    init(count: Int) {
        self.count = count
        stride = max(8, (count + 7) / 8 * 8)
        slots = .allocate(capacity: stride * Self.shardCount)
        for index in 0..<(stride * Self.shardCount) { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: stride * Self.shardCount)
        slots.deallocate()
    }

    func add(_ amount: Int, at index: Int) {
        slots[Self.currentShard * stride + index].wrappingAdd(amount, ordering: .relaxed)
    }

    /// The counter's total over every shard (a scrape; a little behind adds in flight).
    func total(at index: Int) -> Int {
        (0..<Self.shardCount).reduce(0) { sum, shard in sum &+ slots[shard * stride + index].load(ordering: .relaxed) }
    }

    /// The calling thread's shard: its thread id, scrambled.
    private static var currentShard: Int {
        let id = UInt64(pthread_self())
        return Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 60)
    }
}
