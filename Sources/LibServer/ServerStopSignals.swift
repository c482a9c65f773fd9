import CSignals
import Foundation
import LibHTTPServer

/// SIGTERM, SIGINT and SIGHUP stop the server gracefully, whenever they come;
/// SIGUSR1 drains it.
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

    /// Blocks SIGUSR1, the drain signal, the same way.
    static func blockDrain() throws -> Int32 {
        let fd = csignals_open_drain_descriptor()
        guard fd >= 0 else {
            throw ServerStopSignalsError(reason: String(cString: strerror(-fd)))
        }
        return fd
    }

    /// Stops `servers` on a thread of its own when a stop signal arrives (or
    /// one arrived before this was called). Sleeps with no timeout meanwhile.
    static func stop(_ servers: [HTTPServer], onSignalFrom fd: Int32) {
        let thread = Thread {
            waitForSignal(on: fd)
            // The library's listener first: the operations one answers while requests finish.
            for server in servers { server.stop() }
        }
        thread.start()
    }

    /// Drains `server` (`HTTPServer.drain`) when SIGUSR1 arrives.
    static func drain(_ server: HTTPServer, onSignalFrom fd: Int32) {
        let thread = Thread {
            waitForSignal(on: fd)
            server.drain()
            FileHandle.standardError.write(Data("lib-server: draining (SIGUSR1): /readyz answers 503, requests are still served\n".utf8))
        }
        thread.start()
    }

    private static func waitForSignal(on fd: Int32) {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let polled = poll(&ready, 1, -1)
            if polled > 0 && csignals_drain(fd) > 0 { return }
            if polled < 0 && errno != EINTR { return }
        }
    }
}

struct ServerStopSignalsError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "cannot watch for stop signals: \(reason)" }
}
