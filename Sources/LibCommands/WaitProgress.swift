import LibCLI

/// The one line a long wait shows on a terminal ("Waiting for a network
/// route to HOST — 8 s left"), rewritten in place and cleared when done.
/// Off a terminal it shows nothing: cron mails whatever is printed.
struct WaitProgress {
    let channel: OutputChannel
    let isEnabled: Bool

    init(_ context: CommandContext) {
        channel = context.standardError
        isEnabled = context.standardError.isTerminal && !context.globalOptions.quiet
    }

    /// `enabled: false`: never shows anything (`push --watch` logs lines instead).
    init(_ context: CommandContext, enabled: Bool) {
        channel = context.standardError
        isEnabled = enabled && context.standardError.isTerminal && !context.globalOptions.quiet
    }

    func show(_ text: String, secondsLeft: Double?) {
        guard isEnabled else { return }
        let left = secondsLeft.map { " — \(Int($0.rounded(.up))) s left" } ?? ""
        channel.write("\r\u{1B}[K" + text + left)
    }

    func clear() {
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K")
    }
}
