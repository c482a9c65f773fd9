import LibJSON
import LibBase

/// The one place where errors become an exit status and the text printed on
/// standard error: a `lib: ` line, or under `--json` one JSON document,
/// `{"error": {"message": …, "exit_code": …, "reason": …}}`
/// (docs/json/error.schema.json).
public struct ErrorReport: Equatable, Sendable {
    public let exitCode: ExitCode
    /// The explanation without the `lib: ` prefix; empty when the command
    /// has already said it (`SilentFailure`).
    public let message: String
    /// A short, stable word for scripts: the error's own, else the exit code's.
    public let reason: String
    /// The command whose help a usage error points to.
    private let usageCommand: String?
    private let isUsage: Bool
    /// Lib ends by SIGINT after the report (`CommandFailure.interruptedByUser`).
    public let endsByInterrupt: Bool

    public init(for error: any Error) {
        var reason: String?
        usageCommand = (error as? UsageError)?.command
        isUsage = error is UsageError
        endsByInterrupt = (error as? CommandFailure)?.interruptedByUser ?? false
        switch error {
        case let error as UsageError:
            exitCode = .usage
            message = error.message
        case let error as SilentFailure:
            exitCode = error.exitCode
            message = ""
        case let error as any ReportableError:
            exitCode = error.exitCode
            message = error.message
            reason = error.reason
        default:
            exitCode = .failure
            message = String(describing: error)
        }
        self.reason = reason ?? exitCode.reason
    }

    /// What to print on standard error, ending with a newline, or "" for none.
    public var text: String { text(painter: TextPainter(isEnabled: false)) }

    /// The text with the `lib:` prefix painted (red on a terminal); with a
    /// width (a terminal's), each line longer than it is wrapped between
    /// words, the rest indented by two, so that the terminal never breaks a
    /// hint inside a word.
    public func text(painter: TextPainter, width: Int? = nil) -> String {
        if message.isEmpty { return "" }
        let name = "\(ProgramInfo.name):"
        var text: String
        if isUsage {
            text = UsageError(message, command: usageCommand).report
        } else {
            // Messages quote servers' problem details: shown escaped (TerminalText).
            let shown = TerminalText.escaped(message, keepingLayout: true)
            text = "\(name) \(shown)\(shown.hasSuffix("\n") ? "" : "\n")"
        }
        if let width { text = TextWrapping.breakLongLines(text, width: width) }
        return painter.paint(name, .red) + text.dropFirst(name.count)
    }

    /// The JSON document for standard error under `--json`, or "" for none.
    public var json: String {
        if message.isEmpty { return "" }
        let text = message.hasSuffix("\n") ? String(message.dropLast()) : message
        let error: JSONValue = [
            "message": .string(text), "exit_code": .integer(Int64(exitCode.rawValue)), "reason": .string(reason),
        ]
        return JSONValue.object(JSONObject([("error", error)])).serialized() + "\n"
    }

    /// The text or JSON form, as the global options ask.
    public func rendered(_ options: GlobalOptions, painter: TextPainter = TextPainter(isEnabled: false), width: Int? = nil) -> String {
        options.json ? json : text(painter: painter, width: width)
    }
}

extension ExitCode {
    /// The word a JSON error gives as its reason when the error has none of its own.
    public var reason: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage"
        case .attention: "attention"
        case .authentication: "authentication"
        case .refused: "refused"
        case .temporaryFailure: "temporary"
        }
    }
}
