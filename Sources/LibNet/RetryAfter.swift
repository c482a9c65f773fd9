import Glibc

/// The delay a server asks for in `Retry-After` (RFC 9110 §10.2.3), in
/// whole seconds from when the answer was received.
public struct RetryAfter: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int

    public init(seconds: Int) {
        self.seconds = max(0, seconds)
    }

    /// Parses delay-seconds ("120") or an IMF-fixdate ("Sun, 06 Nov 1994
    /// 08:49:37 GMT"), relative to `now` (seconds since 1970).
    public init?(headerValue: String, now: Int = Int(time(nil))) {
        let value = headerValue.trimmingSpaces()
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int(value) else { return nil }
            self.init(seconds: seconds)
            return
        }
        guard let date = Self.secondsSince1970(imfFixdate: value) else { return nil }
        self.init(seconds: date - now)
    }

    public var description: String { "\(seconds)" }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sun, 06 Nov 1994 08:49:37 GMT" as seconds since 1970 (RFC 9110 §5.6.7).
    static func secondsSince1970(imfFixdate text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return daysSince1970(year: year, month: monthIndex + 1, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// days_from_civil, http://howardhinnant.github.io/date_algorithms.html).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
