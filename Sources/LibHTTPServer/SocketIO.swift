#if canImport(Glibc)
import Glibc
#endif

/// The result of one `recv`.
enum ReceiveResult {
    case bytes(Int)
    case closed
    case timedOut
    case failed(Int32)
}

/// Blocking socket calls with EINTR retried and SIGPIPE suppressed.
enum SocketIO {
    static func receive(_ fd: Int32, into scratch: inout [UInt8]) -> ReceiveResult {
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            let code = errno
            if code == EINTR { continue }
            // SO_RCVTIMEO expiry shows up as EAGAIN on a blocking socket.
            if code == EAGAIN || code == EWOULDBLOCK { return .timedOut }
            return .failed(code)
        }
    }

    /// Waits until `deadline` for bytes, then receives them.
    static func receive(_ fd: Int32, into scratch: inout [UInt8], before deadline: ContinuousClock.Instant) -> ReceiveResult {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0 && errno == EINTR { continue }
            if polled < 0 { return .failed(errno) }
            if polled == 0 { continue }
            return receive(fd, into: &scratch)
        }
    }

    /// Sends every byte; false when the peer is gone or the send timed out.
    static func sendAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>, flags: Int32 = 0) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            // MSG_NOSIGNAL: a peer that went away is an EPIPE here, not a process-killing SIGPIPE.
            let sent = bytes[offset...].withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | flags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    static func setTimeout(_ fd: Int32, option: Int32, seconds: Double) {
        let clamped = max(0.001, min(seconds, 86_400 * 365))
        var value = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - clamped.rounded(.towardZero)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Half-closes, then reads and discards what the peer still sends for up
    /// to `seconds`, before the caller closes. Closing a socket with unread
    /// input makes the kernel send RST, which can destroy the answer just
    /// sent before the peer reads it (RFC 9112 §9.6).
    static func drainBeforeClose(_ fd: Int32, seconds: Double) {
        _ = shutdown(fd, Int32(SHUT_WR))
        setTimeout(fd, option: SO_RCVTIMEO, seconds: seconds)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            guard case .bytes = receive(fd, into: &scratch) else { return }
        }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
