import Foundation

/// Blocking work in a test (a read until EOF, a command, a request that
/// waits), on a thread of its own.
///
/// Not on `DispatchQueue.global()`: on Linux, libdispatch adds about one
/// worker a second while its workers are blocked, so a new item waits about
/// a second for every blocking item already there (measured: behind 40, it
/// started 38 s later). A test process holds many: every running
/// lib-server's output drainer, every command's readers.
public enum OwnThread {
    /// Starts `work` now; `group`, if given, is entered now and left when it ends.
    public static func start(in group: DispatchGroup? = nil, _ work: @escaping @Sendable () -> Void) {
        group?.enter()
        Thread.detachNewThread {
            work()
            group?.leave()
        }
    }
}
