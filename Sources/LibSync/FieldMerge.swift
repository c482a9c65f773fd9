import LibJSON

/// A field-level three-way merge of JSON objects, as `lib resolve` does it:
/// a field changed on one side only takes that side's value; changed on both
/// sides to the same value is fine; changed on both sides to different values
/// is a clash, settled by `clashesTake` (git's `merge -X ours/theirs`). A
/// missing field is a value like any other (added or removed counts as
/// changed).
public struct FieldMerge: Equatable, Sendable {
    public enum Side: Equatable, Sendable { case mine, theirs }

    /// The merged document; clashing fields take the `clashesTake` side.
    public var merged: JSONObject
    /// Fields changed on both sides to different values, in document order.
    public var clashes: [String]
    /// Fields where the result took the server's change.
    public var fromTheirs: [String]
    /// Fields where the result took this device's change.
    public var fromMine: [String]

    public init(base: JSONObject, mine: JSONObject, theirs: JSONObject, clashesTake side: Side = .mine) {
        merged = JSONObject()
        clashes = []
        fromTheirs = []
        fromMine = []
        for key in Self.fields(base, mine, theirs) {
            let b = base[key], m = mine[key], t = theirs[key]
            if m == t {
                merged[key] = m
            } else if m == b {
                merged[key] = t
                fromTheirs.append(key)
            } else if t == b {
                merged[key] = m
                fromMine.append(key)
            } else {
                merged[key] = side == .mine ? m : t
                clashes.append(key)
            }
        }
    }

    public var isClean: Bool { clashes.isEmpty }

    /// Every field of the three, in the order theirs, then mine, then base
    /// first mention them.
    public static func fields(_ base: JSONObject, _ mine: JSONObject, _ theirs: JSONObject) -> [String] {
        var seen: Set<String> = []
        var order: [String] = []
        for key in theirs.keys + mine.keys + base.keys where seen.insert(key).inserted { order.append(key) }
        return order
    }

    /// Whether a field was changed on both sides to different values.
    public static func clashes(_ key: String, base: JSONObject?, mine: JSONObject?, theirs: JSONObject?) -> Bool {
        let b = base?[key], m = mine?[key], t = theirs?[key]
        return m != t && m != b && t != b
    }

    /// The fields whose value differs between two versions (added, removed
    /// or changed), in the order `new`, then `old`, first mention them.
    public static func changedFields(from old: JSONObject, to new: JSONObject) -> [String] {
        var seen: Set<String> = []
        var changed: [String] = []
        for key in new.keys + old.keys where seen.insert(key).inserted && old[key] != new[key] { changed.append(key) }
        return changed
    }
}
