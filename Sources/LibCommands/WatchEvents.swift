#if canImport(Glibc)
import Glibc
#endif
import CSignals
import LibNet

/// Everything `push --watch` waits for, in one poll() set: SIGTERM, SIGINT
/// and SIGHUP (a signalfd), changes to the account stores and to the account
/// list (inotify), routing changes (rtnetlink) and, once it has been asked,
/// NetworkManager's change signals. Nothing in the set wakes the process by
/// itself: idle, it sleeps in poll() with no timeout.
final class WatchEvents {
    enum Event: Equatable {
        /// SIGTERM, SIGINT or SIGHUP arrived.
        case stop
        /// A file in a watched directory changed (the watch descriptor).
        case directoryChanged(Int32)
        /// A watched directory was removed (the account's files went with logout).
        case directoryRemoved(Int32)
        case routesChanged
        case networkManagerChanged
        /// A waiting change-feed request answered (FeedWatch).
        case feedAnswered
    }

    private let signals: Int32
    private let inotify: Int32
    private let routes: RouteEvents?
    private var networkManagerDescriptor: Int32 = -1
    private var feedDescriptor: Int32 = -1

    /// Blocks SIGTERM and SIGINT in this thread (threads started later, such
    /// as libcurl's resolver or GDBus's worker, inherit the mask), so that
    /// they arrive only through the signalfd and never interrupt a request:
    /// the one on the wire finishes and its answer is recorded.
    init() throws {
        signals = csignals_open_stop_descriptor()
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard signals >= 0, inotify >= 0 else {
            throw CommandFailureError.io("Cannot watch for changes: \(String(cString: strerror(errno)))")
        }
        routes = RouteEvents()
    }

    deinit {
        close(signals)
        close(inotify)
    }

    /// Whether netlink could be opened; without it the path is probed on a timer.
    var hasRouteEvents: Bool { routes != nil }

    /// Whether SIGTERM or SIGINT is waiting, without taking it: asked
    /// between two requests of a push.
    var stopRequested: Bool { csignals_stop_pending() != 0 }

    /// Watches a directory for files written, created, moved in or removed,
    /// and for its own removal. Returns the watch descriptor (-1 on failure).
    func watch(directory: String) -> Int32 {
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        return inotify_add_watch(inotify, directory, mask)
    }

    func unwatch(_ descriptor: Int32) {
        if descriptor >= 0 { inotify_rm_watch(inotify, descriptor) }
    }

    /// Adds NetworkManager's change descriptor to the set.
    func listen(toNetworkManager descriptor: Int32) {
        networkManagerDescriptor = descriptor
    }

    /// Adds the waiting change-feed requests' pipe to the set.
    func listen(toFeeds descriptor: Int32) {
        feedDescriptor = descriptor
    }

    /// Sleeps until something happens or `timeout` seconds pass (nil: no
    /// timeout), and says what happened (nothing on a timeout).
    func wait(timeout: Double?) -> [Event] {
        var descriptors = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: routes?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: networkManagerDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: feedDescriptor, events: Int16(POLLIN), revents: 0)]
        let milliseconds = timeout.map { Int32(clamping: Int(max(0, ($0 * 1000).rounded(.up)))) } ?? -1
        guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { return [] }
        var events: [Event] = []
        if descriptors[0].revents != 0 {
            _ = csignals_drain(signals)
            events.append(.stop)
        }
        if descriptors[1].revents != 0 { events += readDirectoryEvents() }
        if descriptors[2].revents != 0 {
            routes?.drain()
            events.append(.routesChanged)
        }
        // The monitor empties its own descriptor when it reads the status again.
        if descriptors[3].revents != 0 { events.append(.networkManagerChanged) }
        // FeedWatch.answered() empties the pipe.
        if descriptors[4].revents != 0 { events.append(.feedAnswered) }
        return events
    }

    /// inotify(7) records: a fixed header, then a NUL-padded name.
    private func readDirectoryEvents() -> [Event] {
        var events: [Event] = []
        let capacity = 16 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(inotify, buffer, capacity)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let record = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let event: Event = record.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0
                    ? .directoryRemoved(record.wd) : .directoryChanged(record.wd)
                if !events.contains(event) { events.append(event) }
                offset += MemoryLayout<inotify_event>.size + Int(record.len)
            }
        }
        return events
    }
}
