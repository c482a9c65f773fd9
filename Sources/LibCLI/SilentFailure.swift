import LibBase

/// A failure whose explanation the command has already printed (for example
/// the list of conflicts that makes `push` exit 3): only the status remains.
public struct SilentFailure: Error, Equatable, Sendable {
    public let exitCode: ExitCode

    public init(_ exitCode: ExitCode) {
        self.exitCode = exitCode
    }
}
