import LibCLI

/// The one line a long wait shows on a terminal ("Waiting for a network
/// route to HOST — 8 s left"), rewritten in place and cleared when done.
/// Off a terminal (or on a TERM=dumb one, which cannot redraw a line) it
/// shows nothing: cron mails whatever is printed.
struct WaitProgress {
    let channel: OutputChannel
    let isEnabled: Bool

    init(_ context: CommandContext) {
        channel = context.standardError
        isEnabled = context.takesEscapes(context.standardError) && !context.globalOptions.quiet
    }

    /// `enabled: false`: never shows anything (`push --watch` logs lines instead).
    init(_ context: CommandContext, enabled: Bool) {
        channel = context.standardError
        isEnabled = enabled && context.takesEscapes(context.standardError) && !context.globalOptions.quiet
    }

    /// Rewrites the line; it is cut to the terminal's width (an ellipsis
    /// where the text was cut, the seconds left kept), since a line that
    /// wraps leaves a row behind at every redraw.
    func show(_ text: String, secondsLeft: Double?) {
        guard isEnabled else { return }
        let left = secondsLeft.map { " — \(Int($0.rounded(.up))) s left" } ?? ""
        channel.write("\r\u{1B}[K" + Self.fitted(text, suffix: left, columns: channel.columns ?? 80))
    }

    /// `text + suffix` in fewer than `columns` columns (the last one is left
    /// free: a character there makes some terminals wrap), one column a
    /// character, as `TextTable` counts.
    static func fitted(_ text: String, suffix: String, columns: Int) -> String {
        let room = columns - 1
        if text.count + suffix.count <= room { return text + suffix }
        guard room - suffix.count >= 2 else { return String((text + suffix).prefix(max(0, room))) }
        return text.prefix(room - suffix.count - 1) + "…" + suffix
    }

    func clear() {
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K")
    }
}
