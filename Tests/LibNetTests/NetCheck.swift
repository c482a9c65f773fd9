import Foundation
import TestSupport

/// Runs the built `lib-net-check` (outside any namespace) with a clean
/// environment.
enum NetCheck {
    static var path: String { BuiltProducts.path("lib-net-check") }

    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws
        -> CommandResult
    {
        var env = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        env.merge(environment) { $1 }
        return try CommandRunner.run(path, arguments, environment: env, timeout: timeout)
    }
}

extension CommandResult {
    /// The first line of stdout (the classification).
    var classification: String { stdout.split(separator: "\n").first.map(String.init) ?? "" }
    /// The first line of stderr (the explanation).
    var explanation: String { stderr.split(separator: "\n").first.map(String.init) ?? "" }
}
