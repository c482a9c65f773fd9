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
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
