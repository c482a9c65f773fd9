import LibCLI
import LibBase

/// The progress line of a first pull on a terminal, as `git clone` shows
/// its objects: "Listing books from HOST: 42% (8,400/20,000), 3,150/s".
/// Nothing off a terminal or under `-q`.
struct PullProgress {
    let channel: OutputChannel
    let isEnabled: Bool
    let server: String
    let started = MonotonicClock.now()

    init(_ context: CommandContext, server: String, enabled: Bool = true) {
        channel = context.standardError
        isEnabled = enabled && context.takesEscapes(context.standardError) && !context.globalOptions.quiet && !context.globalOptions.json
        self.server = server
    }

    func show(listed: Int, of total: Int?) {
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K" + Self.line(listed: listed, of: total, seconds: MonotonicClock.now() - started, server: server))
    }

    static func line(listed: Int, of total: Int?, seconds: Double, server: String) -> String {
        var text = "Listing books from \(server): "
        if let total, total > 0 {
            text += "\(min(100, listed * 100 / total))% (\(grouped(listed))/\(grouped(total)))"
        } else {
            text += grouped(listed)
        }
        if seconds > 0.05 { text += ", \(grouped(Int(Double(listed) / seconds)))/s" }
        return text
    }

    func clear() {
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K")
    }

    /// 20000 → "20,000"
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
