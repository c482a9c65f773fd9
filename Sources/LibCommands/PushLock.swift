#if canImport(Glibc)
import Glibc
import LibBase
#endif

/// One push per account at a time: an exclusive flock on the account's
/// `push.lock`, released when the process ends however it ends (kill -9
/// included). Logout takes it too, to wait for a running push.
final class PushLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, waiting at most `timeout` seconds (polling, as flock
    /// has no timeout of its own); nil when another process still holds it.
    static func acquire(path: String, timeout: Double) throws -> PushLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CommandFailureError.io("Cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = MonotonicClock.now() + timeout
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return PushLock(descriptor: fd) }
            if errno != EWOULDBLOCK && errno != EINTR {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw CommandFailureError.io("Cannot lock \(path): \(reason)")
            }
            if MonotonicClock.now() >= deadline {
                close(fd)
                return nil
            }
            usleep(20_000)
        }
    }
}

/// Seconds on a clock that never jumps.
enum CommandFailureError: Error, CustomStringConvertible {
    case io(String)
    var description: String { switch self { case .io(let m): return m } }
}
