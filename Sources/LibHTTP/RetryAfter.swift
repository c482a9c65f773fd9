#if canImport(Glibc)
import Glibc
import LibBase
#endif

/// The delay a server asks for in `Retry-After` (RFC 9110 §10.2.3), in
/// whole seconds from when the answer was received.
public struct RetryAfter: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int

    public init(seconds: Int) {
        self.seconds = max(0, seconds)
    }

    /// Parses delay-seconds ("120") or an IMF-fixdate ("Sun, 06 Nov 1994
    /// 08:49:37 GMT"), relative to `now` (seconds since 1970).
    public init?(headerValue: String, now: Int) {
        let value = headerValue.trimmingSpacesAndTabs()
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int(value) else { return nil }
            self.init(seconds: seconds)
            return
        }
        guard let date = HTTPDate.secondsSince1970(imfFixdate: value) else { return nil }
        // A clock set absurdly far off must not trap: a date in its past is "now".
        let (delay, overflow) = date.subtractingReportingOverflow(now)
        self.init(seconds: overflow ? (now > date ? 0 : Int.max) : delay)
    }

    /// The field value to send: delay-seconds.
    public var headerValue: String { "\(seconds)" }

    public var description: String { "\(seconds)" }
}

