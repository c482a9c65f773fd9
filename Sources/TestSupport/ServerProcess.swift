import Foundation

/// A running `lib-server` binary on loopback, started on a free port with its
/// own database; terminated when released.
public final class ServerProcess: @unchecked Sendable {
    public let process: Process
    public let host: String
    public let port: Int
    public let databasePath: String
    /// The directory the database lives in, when the server owns it: it is
    /// removed only after the server is released, never while it runs.
    public let directory: TemporaryDirectory?
    public var baseURL: String { "http://\(host):\(port)" }
    /// The operations listener's port, when `--ops-listen` was given (its
    /// address is the second line the server prints).
    public let operationsPort: Int?
    private let output: Pipe

    /// Starts `lib-server --db DB --listen HOST:PORT [--demo] EXTRA...` (after
    /// `launcher`'s words, when given) and waits for its first line,
    /// `listening on http://HOST:PORT`.
    public init(
        database: String, demo: Bool = true, listen: String = "127.0.0.1:0",
        extraArguments: [String] = [], environment: [String: String]? = nil, standardError: FileHandle? = nil,
        owning directory: TemporaryDirectory? = nil, inNamespace namespace: String? = nil, launcher: [String] = []
    ) throws {
        databasePath = database
        self.directory = directory
        process = Process()
        let arguments = ["--db", database, "--listen", listen] + (demo ? ["--demo"] : []) + extraArguments
        if let namespace {
            // `ip netns exec` execs the server: the process is the server's.
            process.executableURL = URL(fileURLWithPath: NetworkNamespace.ip)
            process.arguments = ["netns", "exec", namespace, BuiltProducts.path("lib-server")] + arguments
        } else if let program = launcher.first {
            // A program that execs the server (`prlimit --nofile=…`): the process is the server's.
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [BuiltProducts.path("lib-server")] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: BuiltProducts.path("lib-server"))
            process.arguments = arguments
        }
        if let environment { process.environment = environment }
        if let standardError { process.standardError = standardError }
        output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = try Self.readLine(from: output.fileHandleForReading, timeout: 30)
        let prefix = "listening on http://"
        guard line.hasPrefix(prefix) else {
            process.terminate()
            throw ServerProcessError.unexpectedFirstLine(line)
        }
        let address = line.dropFirst(prefix.count)
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            process.terminate()
            throw ServerProcessError.unexpectedFirstLine(line)
        }
        self.host = String(address[..<colon])
        self.port = port
        if extraArguments.contains("--ops-listen") {
            let second = try Self.readLine(from: output.fileHandleForReading, timeout: 30)
            guard second.hasPrefix("operations on http://"), let colon = second.lastIndex(of: ":"),
                  let opsPort = Int(second[second.index(after: colon)...]) else {
                process.terminate()
                throw ServerProcessError.unexpectedFirstLine(second)
            }
            operationsPort = opsPort
        } else {
            operationsPort = nil
        }
        // Keep draining stdout so that the server never blocks on a full pipe.
        let handle = output.fileHandleForReading
        OwnThread.start { _ = handle.readDataToEndOfFile() }
    }

    /// The same database (and directory) served again, by default on the
    /// same port: a server that went away and came back.
    public func restarted(listen: String? = nil, extraArguments: [String] = []) throws -> ServerProcess {
        try ServerProcess(database: databasePath, listen: listen ?? "127.0.0.1:\(port)", extraArguments: extraArguments,
                          owning: directory)
    }

    /// Sends SIGTERM and waits for the process to end; returns its exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        // A server that ignores SIGTERM for 30 s is killed (and the status shows it).
        if !ChildProcessExit.wait(for: process, timeout: 30) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    private static func readLine(from handle: FileHandle, timeout: TimeInterval) throws -> String {
        var bytes: [UInt8] = []
        let fd = handle.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 100) <= 0 { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n <= 0 { throw ServerProcessError.exitedBeforeListening }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        throw ServerProcessError.timedOut
    }
}

public enum ServerProcessError: Error {
    case unexpectedFirstLine(String)
    case exitedBeforeListening
    case timedOut
}
