/// A command that ran and failed for a reason it can explain in one message,
/// with the exit status that says what kind of failure it was.
public struct CommandFailure: Error, Equatable, Sendable {
    /// The explanation, without the `lib: ` prefix; may span several lines.
    public let message: String
    public let exitCode: ExitCode
    /// A short, stable word for scripts (`offline`, `not-found`); nil: the exit code's word.
    public let reason: String?
    /// The account the message names, when it names one: a report that
    /// speaks for several accounts does not name it again.
    public let account: String?
    /// The user stopped the command with Ctrl-C (the editor it ran ended by
    /// SIGINT): after the message, lib ends by SIGINT too, so that the shell
    /// sees status 130 and a script stops as it would.
    public var interruptedByUser = false

    public init(_ message: String, exitCode: ExitCode = .failure, reason: String? = nil, naming account: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.reason = reason
        self.account = account
    }
}

extension CommandFailure {
    /// A failure that ends lib by SIGINT (see `interruptedByUser`).
    public static func interrupted(_ message: String) -> CommandFailure {
        var failure = CommandFailure(message)
        failure.interruptedByUser = true
        return failure
    }
}
