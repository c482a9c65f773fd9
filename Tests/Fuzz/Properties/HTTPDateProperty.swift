import LibHTTP

/// The client's `Retry-After` (delay-seconds or an HTTP-date, RFC 9110
/// §10.2.3 and §5.6.7) and the server's `Date`: never a crash on any text or
/// any clock; a delay is never negative; a date the server writes reads back
/// as the same instant; and a date the client accepts means the instant the
/// server would write for it.
///
/// Input: the header value, NUL, then eight bytes of a clock (seconds since 1970).
enum HTTPDateProperty: FuzzProperty {
    static func check(_ input: [UInt8]) -> String? {
        let parts = fuzzParts(input, count: 2)
        let text = String(decoding: parts[0], as: UTF8.self)
        let clock = parts[1].prefix(8).reduce(0) { $0 << 8 | Int($1) }
        // Any clock, as a peer or a broken RTC could give.
        if let delay = RetryAfter(headerValue: text, now: clock), delay.seconds < 0 {
            return "a negative delay from '\(text)'"
        }
        // What the server writes for any instant (gmtime may refuse far ones).
        let written = HTTPDate.format(secondsSince1970: clock)
        guard written.hasSuffix(" GMT") else { return "'\(written)' is not an IMF-fixdate" }
        // Years 0001-9999 are the ones IMF-fixdate can carry (4DIGIT).
        let representable = HTTPDate.representable.contains(clock)
        if representable {
            guard let back = HTTPDate.secondsSince1970(imfFixdate: written) else {
                return "the server's date '\(written)' does not parse"
            }
            guard back == clock else { return "'\(written)' reads back as \(back), not \(clock)" }
        }
        if let instant = HTTPDate.secondsSince1970(imfFixdate: text) {
            guard HTTPDate.representable.contains(instant) else {
                return "'\(text)' was accepted as \(instant), outside years 1 to 9999"
            }
            let canonical = HTTPDate.format(secondsSince1970: instant)
            guard HTTPDate.secondsSince1970(imfFixdate: canonical) == instant else {
                return "'\(text)' means \(instant), but the server writes that as '\(canonical)'"
            }
        }
        return nil
    }
}
