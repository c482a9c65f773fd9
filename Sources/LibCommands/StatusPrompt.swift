/// `lib status --prompt`: one compact line per account for a shell prompt,
/// `alice@host:8080 3 pending, 1 conflict`, from the outbox's counts only.
enum StatusPrompt {
    static func line(account: String, summary: OutboxSummary, setAside: Int) -> String {
        var text = "\(account) \(summary.phrase)"
        if setAside > 0 { text += ", \(setAside) set aside" }
        return text
    }
}
