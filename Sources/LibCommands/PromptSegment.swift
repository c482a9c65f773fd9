import LibAccounts
import LibCLI

/// What a shell prompt shows for an account: its name's short form and
/// what waits (`alice ↑3 ≠1 ✗2 ⊘4`: 3 writes pending, 1 conflict, 2
/// rejected, 4 set aside), or nothing at all when nothing waits. The ASCII
/// form (`alice +3 =1 x2 ~4`) is for terminals whose locale is not UTF-8.
struct PromptSegment: Equatable {
    var name: String
    var pending = 0
    var conflicts = 0
    var rejected = 0
    var setAside = 0

    var isEmpty: Bool { pending + conflicts + rejected + setAside == 0 }

    /// The segment, without a newline; empty when there is nothing to say.
    func text(unicode: Bool) -> String {
        guard !isEmpty else { return "" }
        // Appended one by one: zip and joined went through generic code
        // that cost more than the rest of writing the prompt file.
        // The prompt file goes to every prompt raw: never a control character
        // (names are checked at login; this holds whatever the index says).
        var text = TerminalText.escaped(name)
        for (count, mark, ascii) in [(pending, "↑", "+"), (conflicts, "≠", "="), (rejected, "✗", "x"), (setAside, "⊘", "~")]
        where count > 0 {
            text += " "
            text += unicode ? mark : ascii
            text += String(count)
        }
        return text
    }

    /// The prompt file's contents: the UTF-8 form on the first line, the
    /// ASCII form on the second; empty when there is nothing to say (the
    /// snippets then print nothing, and only a missing file makes them ask
    /// `lib status --prompt`).
    var fileContents: String {
        isEmpty ? "" : text(unicode: true) + "\n" + text(unicode: false) + "\n"
    }

    /// Other accounts shown after the one in effect, at most; the rest are counted.
    static let othersShown = 2

    /// The segment of the account in effect, then those of other accounts
    /// with writes waiting (`alice ↑2 · bob ↑1`; ASCII `alice +2 | bob +1`),
    /// at most `othersShown` of them and then how many more (`· 3 more`). With
    /// nothing waiting for the account in effect, the others alone after the
    /// separator (`· bob ↑1`), so that none of them reads as the current one.
    /// The snippets in contrib/prompt compose the same line.
    static func combined(_ own: String, others: [String], unicode: Bool) -> String {
        guard !others.isEmpty else { return own }
        let separator = unicode ? "·" : "|"
        var parts = Array(others.prefix(othersShown))
        if others.count > othersShown { parts.append("\(others.count - othersShown) more") }
        let rest = parts.joined(separator: " \(separator) ")
        return own.isEmpty ? "\(separator) \(rest)" : "\(own) \(separator) \(rest)"
    }

    /// The user name alone when no other signed-in account has it; else
    /// with the host (`alice@example.org`); else the whole name.
    static func shortName(of account: Account, among accounts: [Account]) -> String {
        let others = accounts.filter { $0.name != account.name }
        guard others.contains(where: { $0.username == account.username }) else { return account.username }
        let withHost = "\(account.username)@\(account.origin.host)"
        guard others.contains(where: { "\($0.username)@\($0.origin.host)" == withHost }) else { return withHost }
        return account.name
    }

    /// Whether the locale's characters are UTF-8, read as the C library
    /// would (LC_ALL, then LC_CTYPE, then LANG; unset or empty is "C",
    /// which is ASCII) without loading any locale: the codeset of
    /// `language_TERRITORY.codeset@modifier` is UTF-8 or utf8, in any case.
    static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        guard let dot = locale.firstIndex(of: "." as Character) else { return false }
        let codeset = locale[locale.index(after: dot)...].prefix { $0 != "@" }
        return codeset.lowercased().filter { $0 != "-" } == "utf8"
    }
}
