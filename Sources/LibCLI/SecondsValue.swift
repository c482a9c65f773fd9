/// Reads a number of seconds as written on a command line: digits, with a
/// fractional part only where allowed. No sign, exponent, `inf` or `nan`,
/// which `Double(_:)` alone would accept.
enum SecondsValue {
    static func parse(_ text: String, fractional: Bool) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        if parts.count == 2 {
            guard fractional, !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        }
        return Double(text)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
