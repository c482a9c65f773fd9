/// An entity tag (RFC 9110 §8.8.3): an opaque quoted string, strong or weak
/// (`W/"…"`), e.g. `"3-9f2c1a07"`.
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The opaque tag with its quotes, e.g. `"3-9f2c1a07"`.
    public let opaque: String
    public let isWeak: Bool

    public init(opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// Parses `"…"` or `W/"…"`; nil for anything else (etagc: `!` and
    /// `#`–`~` and obs-text, so no `"`, space or control inside the quotes).
    public init?(parsing text: some StringProtocol) {
        var rest = Substring(text)
        var weak = false
        if rest.hasPrefix("W/") {
            weak = true
            rest = rest.dropFirst(2)
        }
        let bytes = Array(rest.utf8)
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22,
              bytes.dropFirst().dropLast().allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) })
        else { return nil }
        self.init(opaque: String(rest), isWeak: weak)
    }

    /// As sent in `ETag`, `If-Match` and `If-None-Match`.
    public var description: String { isWeak ? "W/" + opaque : opaque }

    /// Strong comparison: both strong and the same opaque tag (RFC 9110 §8.8.3.2).
    public func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }

    /// Weak comparison: the same opaque tag, weak or not.
    public func matchesWeakly(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }
}

/// The value of an `If-Match` or `If-None-Match` field: `*`, or a list of
/// entity tags (RFC 9110 §13.1.1, §13.1.2).
public enum EntityTagCondition: Sendable, Equatable {
    case any
    case tags([EntityTag])

    /// Parses the field's values (the field may be repeated, a list each
    /// time); nil when a member is not an entity tag, or `*` is not alone.
    public init?(fieldValues values: [String]) {
        var tags: [EntityTag] = []
        var sawStar = false
        for value in values {
            for member in Self.members(of: value) {
                if member == "*" { sawStar = true; continue }
                guard let tag = EntityTag(parsing: member) else { return nil }
                tags.append(tag)
            }
        }
        if sawStar {
            guard tags.isEmpty else { return nil }
            self = .any
        } else {
            guard !tags.isEmpty else { return nil }
            self = .tags(tags)
        }
    }

    /// Whether `current` (nil when the resource has no current
    /// representation) passes, comparing strongly or weakly.
    public func matches(_ current: EntityTag?, weakly: Bool) -> Bool {
        guard let current else { return false }
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { weakly ? $0.matchesWeakly(current) : $0.matchesStrongly(current) }
        }
    }

    /// Splits a list at commas outside quotes, trimming spaces and tabs.
    private static func members(of value: String) -> [Substring] {
        var members: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var index = value.startIndex
        while index < value.endIndex {
            let c = value[index]
            if c == "\"" { quoted.toggle() }
            if c == "," && !quoted {
                members.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        members.append(value[start...])
        return members.map { $0.trimmingPrefix { $0 == " " || $0 == "\t" } }
            .map { member in
                var end = member.endIndex
                while end > member.startIndex, [" ", "\t"].contains(member[member.index(before: end)]) {
                    end = member.index(before: end)
                }
                return member[..<end]
            }
            .filter { !$0.isEmpty }
    }
}
