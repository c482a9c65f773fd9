import LibCLI
import LibBase

/// The progress line of a first pull on a terminal, as `git clone` shows
/// its objects: "Listing books from HOST: 42% (8,400/20,000), 3,150/s".
/// Nothing off a terminal or under `-q`; with `--json`, a progress record
/// for each page but the last (`ProgressRecords`).
final class PullProgress {
    let channel: OutputChannel
    let isEnabled: Bool
    private let records: ProgressRecords?
    let server: String
    let started = MonotonicClock.now()
    /// The number of books the server said it has (on the first page only):
    /// every line of the run shows it, in the same form.
    private var total: Int?

    init(_ context: CommandContext, server: String, account: String, enabled: Bool = true) {
        channel = context.standardError
        isEnabled = enabled && context.takesEscapes(context.standardError) && !context.globalOptions.quiet && !context.globalOptions.json
        records = enabled ? ProgressRecords(context, command: "pull", account: account) : nil
        self.server = server
    }

    func show(listed: Int, of total: Int?) {
        if let total { self.total = total }
        if let records, let total = self.total, listed < total {
            records.write([("listed", .integer(Int64(listed))), ("total", .integer(Int64(total)))])
        }
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K" + Self.line(listed: listed, of: self.total, seconds: MonotonicClock.now() - started, server: server,
                                               columns: channel.columns ?? 80))
    }

    /// The line in fewer than `columns` columns (a line that wraps leaves a
    /// row behind at every redraw): the server, then the verb go first; the
    /// books and the rate stay ("Books: 42% (8,400/20,000), 3,150/s").
    static func line(listed: Int, of total: Int?, seconds: Double, server: String, columns: Int) -> String {
        var count: String
        if let total, total > 0 {
            count = "\(min(100, listed * 100 / total))% (\(Wording.number(listed))/\(Wording.number(total)))"
        } else {
            count = Wording.number(listed)
        }
        let rate = seconds > 0.05 ? ", \(Wording.number(Int(Double(listed) / seconds)))/s" : ""
        for lead in ["Listing books from \(server): ", "Listing books: ", "Books: "] where lead.count + count.count + rate.count < columns {
            return lead + count + rate
        }
        if total != nil, "Books: ".count + Wording.number(listed).count + rate.count < columns {
            count = Wording.number(listed)
            return "Books: " + count + rate
        }
        return WaitProgress.fitted("Books: " + count, suffix: rate, columns: columns)
    }

    func clear() {
        guard isEnabled else { return }
        channel.write("\r\u{1B}[K")
    }
}
