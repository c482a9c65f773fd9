import CSignals
import Foundation
import LibHTTPServer

/// SIGTERM, SIGINT and SIGHUP stop the server gracefully, whenever they come.
/// They are blocked before the server binds (and before it starts any
/// thread, which inherits the mask) and read from a signalfd, so that one
/// sent the instant `listening on` is printed is held until it is read,
/// never lost to a handler not yet installed nor taken by the default action.
enum ServerStopSignals {
    /// Blocks the stop signals; returns the descriptor to read them from.
    static func block() throws -> Int32 {
        let fd = csignals_open_stop_descriptor()
        guard fd >= 0 else {
            throw ServerStopSignalsError(reason: String(cString: strerror(-fd)))
        }
        return fd
    }

    /// Stops `server` on its own thread when a stop signal arrives (or one
    /// arrived before this was called). Sleeps with no timeout meanwhile.
    static func stop(_ server: HTTPServer, onSignalFrom fd: Int32) {
        let thread = Thread {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while true {
                let polled = poll(&ready, 1, -1)
                if polled > 0 && csignals_drain(fd) > 0 { break }
                if polled < 0 && errno != EINTR { break }
            }
            server.stop()
        }
        thread.start()
    }
}

struct ServerStopSignalsError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "cannot watch for stop signals: \(reason)" }
}
