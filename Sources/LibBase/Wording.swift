/// Small helpers for writing English in messages, the same in every module.
public enum Wording {
    /// "1 write", "3 writes", "20,000 books"; `plural` when it is not the singular plus "s".
    public static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number(n)) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// A count as every message writes it: thousands grouped, 20000 → "20,000".
    public static func number(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = n < 0 ? "-" : ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    public static func writes(_ n: Int) -> String { count(n, "write") }

    /// `a`, `a or b`, `a, b or c`.
    public static func list(_ items: [String], conjunction: String) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + (items.last ?? "")
        }
    }
}

extension StringProtocol {
    /// The first letter in upper case: a sentence that starts with a word of a message.
    public var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension Array where Element == String {
    /// "a", "a and b", "a, b and c".
    public func joinedAsList(last: String = " and ") -> String {
        guard count > 1, let final = self.last else { return first ?? "" }
        return dropLast().joined(separator: ", ") + last + final
    }
}
