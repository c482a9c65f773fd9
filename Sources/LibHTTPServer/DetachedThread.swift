#if canImport(Glibc)
import Glibc
#endif

/// Starts work on a new detached pthread: one per connection, so that a slow
/// handler blocks only its own client.
enum DetachedThread {
    /// Handlers run deep call chains (JSON, SQLite) but 8 MiB per connection
    /// is far more than they need; 2 MiB keeps 1,000 threads cheap.
    static let stackSize = 2 * 1024 * 1024

    /// False when the system refuses a new thread (EAGAIN): the caller must
    /// then clean up itself.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        _ = pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        if status != 0 {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return false
        }
        return true
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
