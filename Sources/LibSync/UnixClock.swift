#if canImport(Glibc)
import Glibc
#endif

/// Seconds since 1970, UTC: how the stores keep time. (No Foundation here:
/// `lib status` runs in shell prompts, and Foundation doubles its start-up.)
public typealias UnixSeconds = Double

public enum UnixClock {
    public static func now() -> UnixSeconds {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Idempotency keys: 128 random bits from the system's generator, written
/// as a version 4 UUID.
enum IdempotencyKey {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
