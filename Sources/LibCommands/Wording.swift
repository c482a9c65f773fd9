/// Counted nouns, the way the messages say them.
enum Wording {
    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    static func writes(_ n: Int) -> String { count(n, "write") }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension Array where Element == String {
    /// "a", "a and b", "a, b and c".
    func joinedAsList(last: String = " and ") -> String {
        guard count > 1, let final = self.last else { return first ?? "" }
        return dropLast().joined(separator: ", ") + last + final
    }
}
