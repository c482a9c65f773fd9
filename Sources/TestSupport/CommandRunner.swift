import Foundation

/// The outcome of running a command to completion.
public struct CommandResult: Sendable, CustomStringConvertible {
    public let command: [String]
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public var description: String {
        "$ \(command.joined(separator: " "))\nexit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// Runs a command with a given environment and standard input, collecting its
/// output, with a timeout after which it is killed.
public enum CommandRunner {
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String]? = nil,
        stdin: String? = nil,
        timeout: TimeInterval = 60
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inPipe.fileHandleForWriting.close()

        let collected = OutputCollector()
        let group = DispatchGroup()
        for (handle, isOut) in [(outPipe.fileHandleForReading, true), (errPipe.fileHandleForReading, false)] {
            OwnThread.start(in: group) { collected.set(handle.readDataToEndOfFile(), isOut: isOut) }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // A grandchild that outlived the command may still hold the pipes open.
        _ = group.wait(timeout: .now() + (process.terminationReason == .uncaughtSignal ? 2 : 30))
        return CommandResult(
            command: [executable] + arguments, status: process.terminationStatus,
            stdout: collected.out, stderr: collected.err)
    }
}

private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var outData = Data(), errData = Data()
    func set(_ data: Data, isOut: Bool) {
        lock.lock(); defer { lock.unlock() }
        if isOut { outData = data } else { errData = data }
    }
    var out: String { lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self) }
    var err: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self) }
}
