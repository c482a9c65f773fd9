#if canImport(Glibc)
import Glibc
#endif

/// Starts work on a pthread of its own: the one place lib and lib-server
/// make threads by hand (an event loop, a handler pool's threads, a listing
/// page fetched ahead).
public enum NativeThread {
    /// Starts `body`; nil when the system refuses a new thread (EAGAIN).
    /// A joinable thread is returned for `pthread_join`; a detached one
    /// cleans up after itself. `stackSize`: bytes, nil for the default.
    @discardableResult
    public static func start(detached: Bool, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        if detached { _ = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        if let stackSize { _ = pthread_attr_setstacksize(&attributes, stackSize) }
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
