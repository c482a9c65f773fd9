import LibJSON

/// A field-level three-way merge of JSON objects, as `lib resolve` does it:
/// a field changed on one side only takes that side's value; changed on both
/// sides to the same value is fine; changed on both sides to different values
/// is a clash, settled by `clashesTake` (git's `merge -X ours/theirs`). A
/// missing field is a value like any other (added or removed counts as
/// changed).
struct FieldMerge: Equatable {
    enum Side: Equatable { case mine, theirs }

    /// The merged document; clashing fields take the `clashesTake` side.
    var merged: JSONObject
    /// Fields changed on both sides to different values, in document order.
    var clashes: [String]
    /// Fields where the result took the server's change.
    var fromTheirs: [String]
    /// Fields where the result took this device's change.
    var fromMine: [String]

    init(base: JSONObject, mine: JSONObject, theirs: JSONObject, clashesTake side: Side = .mine) {
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

    var isClean: Bool { clashes.isEmpty }

    /// Every field of the three, in the order theirs, then mine, then base
    /// first mention them.
    static func fields(_ base: JSONObject, _ mine: JSONObject, _ theirs: JSONObject) -> [String] {
        var seen: Set<String> = []
        var order: [String] = []
        for key in theirs.keys + mine.keys + base.keys where seen.insert(key).inserted { order.append(key) }
        return order
    }

    /// Whether a field was changed on both sides to different values.
    static func clashes(_ key: String, base: JSONObject?, mine: JSONObject?, theirs: JSONObject?) -> Bool {
        let b = base?[key], m = mine?[key], t = theirs?[key]
        return m != t && m != b && t != b
    }

    /// The fields whose value differs between two versions (added, removed
    /// or changed), in the order `new`, then `old`, first mention them.
    static func changedFields(from old: JSONObject, to new: JSONObject) -> [String] {
        var seen: Set<String> = []
        var changed: [String] = []
        for key in new.keys + old.keys where seen.insert(key).inserted && old[key] != new[key] { changed.append(key) }
        return changed
    }

    /// `document` with the changes that turned `old` into `new` applied on
    /// top: how a write made on top of another is carried over when the one
    /// under it changes.
    static func replaying(from old: JSONObject, to new: JSONObject, onto document: JSONObject) -> JSONObject {
        var result = document
        for key in changedFields(from: old, to: new) { result[key] = new[key] }
        return result
    }
}
