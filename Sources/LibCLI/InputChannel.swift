#if canImport(Glibc)
import Glibc
#endif

/// Where a command reads its standard input from (a password with
/// `--password-stdin`, answers to questions), and whether it is a terminal.
public struct InputChannel: Sendable {
    /// Whether the stream is a terminal (a TTY): commands ask questions only then.
    public let isTerminal: Bool
    private let read: @Sendable () -> [UInt8]

    public init(isTerminal: Bool, readAll: @escaping @Sendable () -> [UInt8]) {
        self.isTerminal = isTerminal
        self.read = readAll
    }

    /// Everything up to the end of input.
    public func readAll() -> [UInt8] {
        read()
    }

    /// The process's standard input.
    public static func standardInput() -> InputChannel {
        InputChannel(isTerminal: isatty(STDIN_FILENO) == 1) { FileDescriptorReader.readAll(STDIN_FILENO) }
    }

    /// Input that holds `text`, for tests.
    public static func text(_ text: String, isTerminal: Bool = false) -> InputChannel {
        let bytes = Array(text.utf8)
        return InputChannel(isTerminal: isTerminal) { bytes }
    }
}

/// Reads whole files and streams with plain system calls (no Foundation at start-up).
enum FileDescriptorReader {
    /// All bytes up to end of file; what was read before an error.
    static func readAll(_ descriptor: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                result.append(contentsOf: chunk[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return result
            }
        }
    }

    /// The contents of the file at `path` as UTF-8 text, or `nil` when it
    /// cannot be opened.
    static func readText(atPath path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return String(decoding: readAll(descriptor), as: UTF8.self)
    }
}
