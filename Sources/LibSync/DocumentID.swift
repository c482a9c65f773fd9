import LibBase

/// Ids for documents made on this device (`lib new`): made here, offline,
/// and never the same twice, on this device or another.
///
/// A ULID (github.com/ulid/spec) in lower case: 48 bits of milliseconds
/// since 1970, then 80 random bits from the system's generator, in
/// Crockford's base 32 (digits and letters without i, l, o, u): 26
/// characters, inside the protocol's id rule (1–128 letters, digits, `-`,
/// `.`, `_`, `~`). Ids sort by the time they were made (to the
/// millisecond); two made in the same millisecond differ in 80 random bits,
/// so a collision between any two devices is as likely as two equal random
/// 80-bit numbers.
public enum DocumentID {
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// A new id, made at `now` (unix seconds).
    public static func make(now: UnixSeconds) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(now: now, random: (generator.next(), generator.next()))
    }

    /// The id of the millisecond `now` and the random bits (the low 80 bits
    /// of the pair are used): what `make` writes, for tests.
    static func make(now: UnixSeconds, random: (UInt64, UInt64)) -> String {
        let millis = UInt64(max(0, now * 1000)) & 0xFFFF_FFFF_FFFF
        // 128 bits: the time in the high 48, then 80 random bits.
        let high = (millis << 16) | (random.0 & 0xFFFF)
        let low = random.1
        var text = [UInt8](repeating: 0, count: 26)
        // 26 digits of 5 bits are 130 bits: the first digit holds the top 3.
        for index in 0..<26 {
            let shift = (25 - index) * 5
            let value: UInt64
            if shift >= 64 {
                value = high >> (shift - 64)
            } else if shift + 5 > 64 {
                value = (low >> shift) | (high << (64 - shift))
            } else {
                value = low >> shift
            }
            text[index] = alphabet[Int(value & 0x1F)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The millisecond an id was made in, read back (nil: not such an id).
    public static func millisecond(of id: String) -> UInt64? {
        let digits = Array(id.utf8)
        guard digits.count == 26 else { return nil }
        var millis: UInt64 = 0
        for digit in digits.prefix(10) {
            guard let value = alphabet.firstIndex(of: digit) else { return nil }
            millis = (millis << 5) | UInt64(value)
        }
        return millis
    }
}
