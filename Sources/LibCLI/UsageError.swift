/// A wrong command line: exit status 2. The message names the flag or argument
/// at fault (and a near match when there is one); `command` is the command
/// whose help the user should read, or `nil` for `lib --help`.
public struct UsageError: Error, Equatable, Sendable {
    /// One line, without the `lib: ` prefix.
    public let message: String
    /// The command being parsed when the error was found, if any.
    public let command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// The two lines printed on standard error: the message, then where to look.
    public var report: String {
        let help = command.map { "\(ProgramInfo.name) \($0) --help" } ?? "\(ProgramInfo.name) --help"
        return "\(ProgramInfo.name): \(message)\nRun '\(help)' for usage.\n"
    }
}
