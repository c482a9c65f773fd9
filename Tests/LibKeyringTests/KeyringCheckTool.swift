import Foundation
import TestSupport

/// Runs the built `lib-keyring-check` in an environment of the test's
/// choosing: one keyring call in a fresh process.
enum KeyringCheckTool {
    /// The result of one run, with the error kind the tool printed.
    struct Run: CustomStringConvertible {
        let result: CommandResult
        let seconds: Double

        var succeeded: Bool { result.status == 0 }
        /// "locked", "timed-out", ... from "[kind] message" on stderr; nil on success.
        var errorKind: String? {
            guard result.stderr.hasPrefix("["), let end = result.stderr.firstIndex(of: "]") else { return nil }
            return String(result.stderr[result.stderr.index(after: result.stderr.startIndex)..<end])
        }
        var output: String { result.stdout.trimmingCharacters(in: .newlines) }
        var description: String { "\(result)\n(\(String(format: "%.2f", seconds)) s)" }
    }

    static func run(
        _ arguments: [String], environment: [String: String], stdin: String? = nil
    ) throws -> Run {
        let started = Date()
        let result = try CommandRunner.run(
            BuiltProducts.path("lib-keyring-check"), arguments, environment: environment, stdin: stdin, timeout: 60)
        return Run(result: result, seconds: Date().timeIntervalSince(started))
    }
}
