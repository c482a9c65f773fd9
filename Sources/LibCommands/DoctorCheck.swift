import LibCLI
import LibJSON
import LibBase

/// One finding of `lib doctor`: what was checked (and for which account),
/// what was found, how to fix it when it is a problem, and the exit code it
/// stands for (0 for a warning, which does not fail the command).
struct DoctorCheck {
    enum Status: String { case ok, warning, problem }

    /// A stable name for scripts: `session-bus`, `cron-bus`, `secret-service`,
    /// `token`, `store`, `server`, `clock`, `proxies`.
    let name: String
    /// The account the check is about, if any.
    var account: String? = nil
    let status: Status
    let found: String
    var fix: String? = nil
    var exitCode: ExitCode = .success

    static func ok(_ name: String, account: String? = nil, _ found: String) -> DoctorCheck {
        DoctorCheck(name: name, account: account, status: .ok, found: found)
    }

    static func warning(_ name: String, account: String? = nil, _ found: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, account: account, status: .warning, found: found, fix: fix)
    }

    static func problem(_ name: String, account: String? = nil, _ found: String, fix: String?, _ code: ExitCode) -> DoctorCheck {
        DoctorCheck(name: name, account: account, status: .problem, found: found, fix: fix, exitCode: code)
    }

    var json: JSONValue {
        .object(JSONObject([
            ("check", .string(name)), ("account", account.map(JSONValue.string) ?? .null),
            ("status", .string(status.rawValue)), ("found", .string(found)),
            ("fix", fix.map(JSONValue.string) ?? .null), ("exit_code", .integer(Int64(exitCode.rawValue))),
        ]))
    }

    /// `ok       token (alice@host): in the keyring`, and the fix indented below.
    /// On a terminal `width` columns wide, each line is wrapped between
    /// words, under the text it continues.
    func text(_ painter: TextPainter, width: Int? = nil) -> String {
        let label: (String, TextStyle) = switch status {
        case .ok: ("ok", .green)
        case .warning: ("warning", .yellow)
        case .problem: ("problem", .red)
        }
        let column = String(repeating: " ", count: Self.textColumn)
        // What a check found quotes servers, keyrings and files: escaped (TerminalText).
        let shown = TerminalText.escaped(found, keepingLayout: true)
        // Wrapped with the label's column blank, so that neither its padding
        // nor its colour's escapes count as words or width; painted after.
        var text = fitted(column + name + (account.map { " (\($0))" } ?? "") + ": " + shown + "\n", width, indent: 0)
        text = painter.paint(label.0, label.1) + text.dropFirst(label.0.count)
        if let fix { text += fitted(column + "fix: " + TerminalText.escaped(fix, keepingLayout: true) + "\n", width, indent: 5) }
        return text
    }

    /// Where the text after the status label starts (`warning` and a space).
    static let textColumn = 9

    private func fitted(_ line: String, _ width: Int?, indent: Int) -> String {
        width.map { TextWrapping.breakLongLines(line, width: $0, indent: indent) } ?? line
    }
}
