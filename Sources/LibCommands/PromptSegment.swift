import LibAccounts
import LibCLI

/// What a shell prompt shows for an account: its alias or its name's short
/// form and what waits (`alice ↑3 ↓5 ≠1 ✗2 ⊘4`: 3 writes pending, 5 books
/// changed on the server and not pulled yet, 1 conflict, 2 rejected, 4 set
/// aside), or nothing at all when nothing waits. The ASCII form (`alice +3
/// v5 =1 x2 ~4`) is for terminals whose locale is not UTF-8.
struct PromptSegment: Equatable {
    var name: String
    var pending = 0
    var conflicts = 0
    var rejected = 0
    var setAside = 0
    /// Books changed on the server that this device has not pulled, as the
    /// server last said (`ServerContact`).
    var behind = 0

    var isEmpty: Bool { pending + conflicts + rejected + setAside + behind == 0 }

    /// Each count's mark (UTF-8, ASCII), in the order the segment shows them.
    static let marks: [(unicode: String, ascii: String)] = [("↑", "+"), ("≠", "="), ("✗", "x"), ("⊘", "~")]
    /// The mark of `behind`, shown after `pending`'s.
    static let behindMark = (unicode: "↓", ascii: "v")

    /// The longest name a segment shows, in characters: a longer one is cut
    /// (`…`, ASCII `...`), so that a segment is at most this plus its counts.
    static let nameWidth = 20

    /// The segment, without a newline; empty when there is nothing to say.
    func text(unicode: Bool) -> String {
        guard !isEmpty else { return "" }
        // The prompt file goes to every prompt raw: never a control character
        // (names are checked at login; this holds whatever the index says).
        var text = Self.cut(TerminalText.escaped(name), unicode: unicode)
        text += Self.counts([pending], unicode: unicode)
        if behind > 0 { text += " " + (unicode ? Self.behindMark.unicode : Self.behindMark.ascii) + String(behind) }
        text += Self.counts([0, conflicts, rejected, setAside], unicode: unicode)
        return text
    }

    /// ` ↑3 ≠1` (each count that is not 0, with its mark).
    // Appended one by one: zip and joined went through generic code
    // that cost more than the rest of writing the prompt file.
    static func counts(_ counts: [Int], unicode: Bool) -> String {
        var text = ""
        for i in counts.indices where counts[i] > 0 {
            text += " "
            text += unicode ? marks[i].unicode : marks[i].ascii
            text += String(counts[i])
        }
        return text
    }

    /// `name`, or its first characters and `…` when it is longer than `nameWidth`.
    static func cut(_ name: String, unicode: Bool) -> String {
        guard name.count > nameWidth else { return name }
        let ellipsis = unicode ? "…" : "..."
        return String(name.prefix(nameWidth - ellipsis.count)) + ellipsis
    }

    /// The prompt file's contents: the UTF-8 form on the first line, the
    /// ASCII form on the second, each empty when there is nothing to say
    /// (the snippets then print nothing for this account, and only a
    /// missing file makes them ask `lib status --prompt`); then the name
    /// alone, UTF-8 and ASCII, which leads the line when only other
    /// accounts have something to say (`combined`).
    var fileContents: String {
        let name = TerminalText.escaped(name)
        return text(unicode: true) + "\n" + text(unicode: false) + "\n"
            + Self.cut(name, unicode: true) + "\n" + Self.cut(name, unicode: false) + "\n"
    }

    /// The segment of the account in effect, then what waits in all other
    /// accounts, added up (`alice ↑2 · ↑1 ≠2`; ASCII `alice +2 | +1 =2`):
    /// however many accounts there are, the line stays short. With nothing
    /// to say for the account in effect, its name alone before the
    /// separator (`alice · ↑1`), so that the others' counts never read as
    /// its own. What other accounts are behind by is not added: it waits
    /// for nobody. The snippets in contrib/prompt compose the same line.
    static func combined(_ own: String, name: String, others: [String], unicode: Bool) -> String {
        var sums = [0, 0, 0, 0]
        for other in others {
            for (i, count) in Self.parsedCounts(other).enumerated() { sums[i] += count }
        }
        let rest = counts(sums, unicode: unicode)
        guard !rest.isEmpty else { return own }
        let separator = unicode ? "·" : "|"
        return (own.isEmpty ? cut(TerminalText.escaped(name), unicode: unicode) : own) + " " + separator + rest
    }

    /// The counts of a segment's text (`bob ↑1 ≠2` or `bob +1 =2`): each
    /// word after the name that is a mark and digits.
    static func parsedCounts(_ segment: String) -> [Int] {
        var counts = [0, 0, 0, 0]
        for word in segment.split(separator: " ").dropFirst() {
            guard let first = word.first, let count = Int(word.dropFirst()), count > 0,
                  let i = marks.firstIndex(where: { $0.unicode == String(first) || $0.ascii == String(first) })
            else { continue }
            counts[i] += count
        }
        return counts
    }

    /// The account's alias when it has one; else the user name alone when no
    /// other signed-in account has it; else with the host
    /// (`alice@example.org`); else with the port alone when only the port
    /// tells them apart (`alice@:19501`); else the whole name.
    static func shortName(of account: Account, among accounts: [Account]) -> String {
        if let alias = account.alias { return alias }
        let others = accounts.filter { $0.name != account.name }
        guard others.contains(where: { $0.username == account.username }) else { return account.username }
        let withHost = "\(account.username)@\(account.origin.host)"
        guard others.contains(where: { "\($0.username)@\($0.origin.host)" == withHost }) else { return withHost }
        let withPort = "\(account.username)@:\(account.origin.port)"
        guard others.contains(where: { $0.username == account.username && $0.origin.port == account.origin.port }) else {
            return withPort
        }
        return account.name
    }

    /// Whether the locale's characters are UTF-8 (ASCIIWords.localeIsUTF8).
    static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        ASCIIWords.localeIsUTF8 { environment[$0] }
    }
}
