#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Somewhere a command writes text: standard output or error, or a buffer in
/// tests. Knows whether it is a terminal, which decides colour and progress.
public struct OutputChannel: Sendable {
    /// Whether the stream is a terminal (a TTY).
    public let isTerminal: Bool
    /// The terminal's width in columns, when it is one and says so.
    public let columns: Int?
    /// The file descriptor behind the channel, for a pager to write to.
    public let descriptor: Int32?
    /// Whether lib's own typography is written in ASCII (ASCIIWords), when
    /// the locale's characters are not UTF-8: on standard error (lib's
    /// messages, which cron mails too) and on standard output at a terminal.
    /// Standard output off a terminal is written as given: a script reads
    /// the data unchanged.
    public var asciiOnly: Bool { ascii == .always || (ascii == .unlessLocaleIsUTF8 && !Self.localeIsUTF8) }
    private let ascii: ASCIIRule
    /// The process's locale is read at the first write that needs it, not
    /// at every start (`lib --version` is on the start-up budget).
    private enum ASCIIRule { case never, always, unlessLocaleIsUTF8 }
    /// Whether whole lines written here are wrapped between words to the
    /// terminal's width (standard error at a terminal: messages and hints,
    /// which the terminal would break anywhere, a command in the middle).
    public let wrapsLines: Bool
    private let sink: any TextSink

    public init(isTerminal: Bool, columns: Int? = nil, descriptor: Int32? = nil, asciiOnly: Bool = false,
                wrapsLines: Bool = false, sink: any TextSink) {
        self.isTerminal = isTerminal
        self.columns = columns
        self.descriptor = descriptor
        self.ascii = asciiOnly ? .always : .never
        self.wrapsLines = wrapsLines
        self.sink = sink
    }

    private init(_ terminal: Bool, _ columns: Int?, _ descriptor: Int32, _ ascii: ASCIIRule, wrapsLines: Bool, sink: any TextSink) {
        isTerminal = terminal
        self.columns = columns
        self.descriptor = descriptor
        self.ascii = ascii
        self.wrapsLines = wrapsLines
        self.sink = sink
    }

    private init(copying channel: OutputChannel, ascii: ASCIIRule) {
        isTerminal = channel.isTerminal
        columns = channel.columns
        descriptor = channel.descriptor
        self.ascii = ascii
        wrapsLines = channel.wrapsLines
        sink = channel.sink
    }

    public func write(_ text: String) {
        var text = ascii != .never && text.utf8.contains(where: { $0 >= 0x80 }) && asciiOnly ? ASCIIWords.transliterated(text) : text
        // Only whole plain lines: a progress line (\r) fits already, and
        // escape sequences would count as width.
        if wrapsLines, let columns, text.hasSuffix("\n"), !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x1B }) {
            text = TextWrapping.breakLongLines(text, width: columns)
        }
        sink.write(text)
    }

    /// The same channel writing every character as it is given (JSON is
    /// data: a title's `→` stays one, whatever the locale).
    public func writingAsGiven() -> OutputChannel { OutputChannel(copying: self, ascii: .never) }

    /// Writes out anything buffered (standard output buffers up to 64 KiB).
    public func flush() {
        sink.flush()
    }

    /// `text` (unpainted) as it should be written here: on a terminal, each
    /// line too long for it wrapped between words (`TextWrapping.breakLongLines`).
    public func fitted(_ text: String) -> String {
        guard isTerminal, let columns else { return text }
        return TextWrapping.breakLongLines(text, width: columns)
    }

    /// The first error a write to the stream met (an errno: ENOSPC, EBADF,
    /// EIO, EPIPE), nil while every write has gone through.
    public var writeError: Int32? { sink.writeError }

    /// The process's standard output, buffered.
    public static func standardOutput() -> OutputChannel {
        let terminal = isatty(STDOUT_FILENO) == 1
        return OutputChannel(terminal, terminal ? terminalColumns(STDOUT_FILENO) : nil, STDOUT_FILENO,
                             terminal ? .unlessLocaleIsUTF8 : .never, wrapsLines: false,
                             sink: FileDescriptorSink(STDOUT_FILENO, buffered: true))
    }

    /// The process's standard error, written at once.
    public static func standardError() -> OutputChannel {
        let terminal = isatty(STDERR_FILENO) == 1
        return OutputChannel(terminal, terminal ? terminalColumns(STDERR_FILENO) : nil, STDERR_FILENO,
                             .unlessLocaleIsUTF8, wrapsLines: terminal,
                             sink: FileDescriptorSink(STDERR_FILENO, buffered: false))
    }

    /// The process's locale, from its environment (getenv: no locale is
    /// loaded), read once, at the first write of a non-ASCII character.
    private static let localeIsUTF8: Bool = ASCIIWords.localeIsUTF8 { name in getenv(name).map { String(cString: $0) } }

    /// A channel that collects what is written into `buffer`, for tests.
    public static func capturing(into buffer: OutputBuffer, isTerminal: Bool = false, columns: Int? = nil) -> OutputChannel {
        OutputChannel(isTerminal: isTerminal, columns: columns, sink: buffer)
    }

    /// The width the terminal reports (TIOCGWINSZ), or nil when it reports none.
    private static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Where an `OutputChannel`'s text goes.
public protocol TextSink: Sendable {
    func write(_ text: String)
    func flush()
    var writeError: Int32? { get }
}

extension TextSink {
    public var writeError: Int32? { nil }
}

/// Collects written text in memory, for tests.
public final class OutputBuffer: TextSink {
    private let storage = Mutex("")

    public init() {}

    public func write(_ text: String) {
        storage.withLock { $0 += text }
    }

    public func flush() {}

    /// Everything written so far.
    public var text: String { storage.withLock { $0 } }
}

/// Writes to a file descriptor, optionally through a buffer.
final class FileDescriptorSink: TextSink {
    private let descriptor: Int32
    private let buffered: Bool
    /// A String rather than bytes: its storage is no generic type for the
    /// runtime to build at start-up.
    private let pending = Mutex("")
    private let firstError = Mutex<Int32?>(nil)
    private static let bufferLimit = 64 * 1024

    var writeError: Int32? { firstError.withLock { $0 } }

    init(_ descriptor: Int32, buffered: Bool) {
        self.descriptor = descriptor
        self.buffered = buffered
    }

    func write(_ text: String) {
        pending.withLock { bytes in
            bytes += text
            if !buffered || bytes.utf8.count >= Self.bufferLimit { drain(&bytes) }
        }
    }

    func flush() {
        pending.withLock { drain(&$0) }
    }

    /// Writes all of `bytes`, retrying short writes and EINTR; on another
    /// error drops them and keeps the first error for the end of the run.
    private func drain(_ bytes: inout String) {
        var offset = 0
        bytes.withUTF8 { raw in
            guard let base = raw.baseAddress else { return }
            while offset < raw.count {
                let written = Glibc.write(descriptor, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    let error = written < 0 ? errno : EIO
                    firstError.withLock { if $0 == nil { $0 = error } }
                    return
                }
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
