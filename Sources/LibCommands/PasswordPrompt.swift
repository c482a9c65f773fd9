#if canImport(Glibc)
import Glibc
#endif

/// Asks on the terminal (`/dev/tty`), without echo for secrets.
enum TerminalPrompt {
    /// Reads one line after printing `prompt`; nil when there is no terminal
    /// or input ended.
    static func ask(_ prompt: String, secret: Bool) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        let canHide = tcgetattr(fd, &saved) == 0
        if secret && canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if secret && canHide {
                tcsetattr(fd, TCSAFLUSH, &saved)
                _ = "\n".withCString { write(fd, $0, 1) }
            }
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A yes/no question; `defaultYes` when the answer is empty.
    static func confirm(_ question: String, defaultYes: Bool) -> Bool {
        guard let answer = ask(question + (defaultYes ? " [Y/n] " : " [y/N] "), secret: false)?.lowercased() else {
            return false
        }
        if answer.isEmpty { return defaultYes }
        return answer == "y" || answer == "yes"
    }
}
