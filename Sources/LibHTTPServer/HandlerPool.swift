#if canImport(Glibc)
import Glibc
#endif
import LibBase

/// The threads one event loop hands its requests to, so that a handler that
/// waits (for the database, a fault's delay, a password hash) never stops
/// the loop. Its queue is the loop's alone: no lock here is shared by the
/// connections of other loops. A connection waiting for bytes holds none of
/// these threads.
final class HandlerPool: @unchecked Sendable {
    // @unchecked: `jobs`, `idle` and `closed` are only touched under `mutex`.
    struct Job {
        let connection: UInt64
        let request: HTTPRequest
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [Job] = []
    private var next = 0
    private var idle = 0
    private var closed = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts `count` threads that run `work` on each job; how many started.
    func start(threads count: Int, work: @escaping @Sendable (Job) -> Void) -> Int {
        var started = 0
        for _ in 0..<count {
            guard NativeThread.start(detached: true, stackSize: HTTPServer.threadStackSize, { [self] in self.serve(work) }) != nil else { break }
            started += 1
        }
        return started
    }

    /// Queues a batch under one lock, waking at most one thread per job.
    func submit(_ batch: [Job]) {
        guard !batch.isEmpty else { return }
        pthread_mutex_lock(mutex)
        jobs.append(contentsOf: batch)
        let wake = min(idle, batch.count)
        pthread_mutex_unlock(mutex)
        if wake == 1 {
            pthread_cond_signal(condition)
        } else if wake > 1 {
            pthread_cond_broadcast(condition)
        }
    }

    /// Lets the threads end once they finish what they run; queued jobs are dropped.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        jobs.removeAll()
        next = 0
        pthread_mutex_unlock(mutex)
        pthread_cond_broadcast(condition)
    }

    private func serve(_ work: @Sendable (Job) -> Void) {
        while let job = take() { work(job) }
    }

    private func take() -> Job? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while next == jobs.count && !closed {
            idle += 1
            pthread_cond_wait(condition, mutex)
            idle -= 1
        }
        if closed { return nil }
        let job = jobs[next]
        next += 1
        if next == jobs.count {
            jobs.removeAll(keepingCapacity: jobs.capacity <= 1024)
            next = 0
        }
        return job
    }
}
