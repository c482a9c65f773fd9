/// Small helpers for writing English in messages.
enum Wording {
    /// `a`, `a or b`, `a, b or c`.
    static func list(_ items: [String], conjunction: String) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + (items.last ?? "")
        }
    }
}
