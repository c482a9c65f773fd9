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

    public static func format(secondsSince1970: Int) -> String {
        var seconds = secondsSince1970
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT" as seconds since 1970, or nil when
    /// the text is not an IMF-fixdate.
    public static func secondsSince1970(imfFixdate text: String) -> Int? {
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

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
