import Foundation
import LibCLI
@testable import LibCommands
import TestSupport
import LibBase

/// The repository checkout these tests were compiled from.
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // LibCLITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }
}

/// What one in-process run of the dispatcher produced.
struct InProcessRun: CustomStringConvertible {
    let arguments: [String]
    let exitCode: ExitCode
    let stdout: String
    let stderr: String

    var description: String {
        "lib \(arguments.joined(separator: " "))\nexit \(exitCode.rawValue)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// Runs `lib ARGUMENTS` in this process with captured streams.
func runInProcess(
    _ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent-home"],
    handlers: [String: CommandHandler] = [:], configure: (inout CommandContext) -> Void = { _ in }
) -> InProcessRun {
    let out = OutputBuffer(), err = OutputBuffer()
    var context = CommandContext(
        standardOutput: .capturing(into: out), standardError: .capturing(into: err), environment: environment)
    configure(&context)
    let code = CommandDispatcher(registry: .lib, handlers: handlers).run(arguments, context: context)
    return InProcessRun(arguments: arguments, exitCode: code, stdout: out.text, stderr: err.text)
}

/// The built `lib` binary's directory and an environment whose PATH starts
/// there and whose LIB_HOME is `home`.
func environmentForBuiltLib(home: String) -> [String: String] {
    let binDirectory = BuiltProducts.directory.path
    let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return ["PATH": "\(binDirectory):\(inherited)", "LIB_HOME": home, "HOME": home, "LANG": "C.UTF-8"]
}

/// Whether an executable is installed, for tests that need a shell or mandoc.
func isInstalled(_ path: String) -> Bool {
    FileManager.default.isExecutableFile(atPath: path)
}
