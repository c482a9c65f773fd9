#if canImport(Glibc)
import Glibc
#endif

/// IMF-fixdate, the one date format HTTP senders use (RFC 9110 §5.6.7),
/// e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, to and from seconds since 1970.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func now() -> String {
        format(secondsSince1970: time(nil))
    }

    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z: the instants an
    /// IMF-fixdate's four-digit year can carry.
    public static let representable = -62_135_596_800...253_402_300_799

    /// Instants outside `representable` are written as its nearest end; the
    /// year always has four digits (0997, not 997: found by the http-date
    /// fuzz target).
    public static func format(secondsSince1970: Int) -> String {
        var seconds = min(max(secondsSince1970, representable.lowerBound), representable.upperBound)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        let year = String(Int(parts.tm_year) + 1900)
        return "\(day), \(two(parts.tm_mday)) \(month) \(String(repeating: "0", count: max(0, 4 - year.count)) + year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT" as seconds since 1970, or nil when
    /// the text is not an IMF-fixdate: exactly the grammar's digit counts,
    /// so that no year (19084 or 99999999999999, say) can go past
    /// `representable` or overflow the arithmetic below (found by the
    /// http-date fuzz target).
    public static func secondsSince1970(imfFixdate text: String) -> Int? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, dayNames.contains(String(parts[0])), parts[5] == "GMT",
              let day = digits(parts[1], count: 2), let monthIndex = months.firstIndex(of: String(parts[2])),
              let year = digits(parts[3], count: 4), year >= 1
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = digits(clock[0], count: 2), let minute = digits(clock[1], count: 2),
              let second = digits(clock[2], count: 2),
              (1...daysIn(month: monthIndex + 1, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let instant = daysSince1970(year: year, month: monthIndex + 1, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        // A leap second on 9999-12-31 would be the first instant of year 10000.
        return representable.contains(instant) ? instant : nil
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static let dayNames = days.map { $0 + "," }

    /// The value of exactly `count` ASCII digits, else nil (no sign, no spaces).
    private static func digits(_ text: Substring, count: Int) -> Int? {
        guard text.utf8.count == count, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
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

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
