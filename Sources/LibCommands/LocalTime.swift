#if canImport(Glibc)
import Glibc
#endif

/// A moment as a person reads it on this machine's clock (TZ applies):
/// "10:02" today, "Nov 30 10:02" on another day, "2025-11-30 10:02" another year.
enum LocalTime {
    static func describe(_ seconds: Double, now: Double) -> String {
        var moment = time_t(seconds), today = time_t(now)
        var parts = tm(), current = tm()
        localtime_r(&moment, &parts)
        localtime_r(&today, &current)
        let format: String
        if parts.tm_year != current.tm_year { format = "%Y-%m-%d %H:%M" }
        else if parts.tm_yday != current.tm_yday { format = "%b %e %H:%M" }
        else { format = "%H:%M" }
        return formatted(parts, format)
    }

    /// "2026-11-30 10:02", whatever the day: `lib log`'s one form, for this
    /// device's writes and for the server's history alike.
    static func stamp(_ seconds: Double) -> String {
        var moment = time_t(seconds)
        var parts = tm()
        localtime_r(&moment, &parts)
        return formatted(parts, "%Y-%m-%d %H:%M")
    }

    /// The server's "2026-12-01T21:41:02.123Z" (UTC) as unix seconds; nil for any other form.
    static func seconds(fromUTC text: String) -> Double? {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) })
        guard text.hasSuffix("Z"), parts.count == 6,
              let year = Int32(parts[0]), let month = Int32(parts[1]), let day = Int32(parts[2]),
              let hour = Int32(parts[3]), let minute = Int32(parts[4]), let second = Double(parts[5]) else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = month - 1
        fields.tm_mday = day
        fields.tm_hour = hour
        fields.tm_min = minute
        fields.tm_sec = Int32(second)
        let whole = timegm(&fields)
        return whole == -1 ? nil : Double(whole) + second - second.rounded(.down)
    }

    private static func formatted(_ parts: tm, _ format: String) -> String {
        var parts = parts
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
