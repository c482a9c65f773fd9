/// The one place where errors become an exit status and the text printed on
/// standard error.
public struct ErrorReport: Equatable, Sendable {
    public let exitCode: ExitCode
    /// What to print on standard error, ending with a newline, or "" for none.
    public let text: String

    public init(for error: any Error) {
        switch error {
        case let error as UsageError:
            exitCode = .usage
            text = error.report
        case let error as CommandFailure:
            exitCode = error.exitCode
            text = Self.line(error.message)
        case let error as SilentFailure:
            exitCode = error.exitCode
            text = ""
        case let error as any ReportableError:
            exitCode = error.exitCode
            text = Self.line(error.message)
        default:
            exitCode = .failure
            text = Self.line(String(describing: error))
        }
    }

    private static func line(_ message: String) -> String {
        "\(ProgramInfo.name): \(message)\(message.hasSuffix("\n") ? "" : "\n")"
    }
}
