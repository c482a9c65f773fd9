/// Reads a duration as written on a command line: a number of seconds
/// (`90`, `1.5`) or a number with a unit (`90s`, `2m`, `1.5h`), as
/// systemd and GNU `timeout` write them. No sign, exponent, `inf` or
/// `nan`, which `Double(_:)` alone would accept.
enum SecondsValue {
    /// The units a duration may end with, in seconds.
    static let units: [(suffix: String, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600)]

    static func parse(_ text: String) -> Double? {
        var number = Substring(text)
        var scale = 1.0
        if let unit = units.first(where: { text.hasSuffix($0.suffix) }) {
            number = number.dropLast(unit.suffix.count)
            scale = unit.seconds
        }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit) else { return nil }
        }
        guard let value = Double(number) else { return nil }
        return value * scale
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
