import LibJSON

/// What a change of a document does, field by field: each field it sets,
/// with its new value, and each it removes, in the order they were changed.
/// Every other field is left as the server has it.
public struct FieldChanges: Sendable, Equatable {
    /// The fields in order; a nil value removes the field.
    public private(set) var fields: [(name: String, value: JSONValue?)] = []

    public init() {}

    /// The changes that turn `old` into `new` (added, changed and removed fields).
    public init(from old: JSONObject, to new: JSONObject) {
        for name in FieldMerge.changedFields(from: old, to: new) { self[name] = .some(new[name]) }
    }

    public var isEmpty: Bool { fields.isEmpty }
    public var names: [String] { fields.map(\.name) }

    /// `.some(nil)`: the change removes the field; nil: it leaves the field alone.
    public subscript(name: String) -> JSONValue?? {
        get { fields.first(where: { $0.name == name }).map(\.value) }
        set {
            let index = fields.firstIndex(where: { $0.name == name })
            switch (index, newValue) {
            case (let i?, let value?): fields[i].value = value
            case (let i?, nil): fields.remove(at: i)
            case (nil, let value?): fields.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// `document` with these fields set and removed.
    public func applied(to document: JSONObject) -> JSONObject {
        var result = document
        for (name, value) in fields { result[name] = value }
        return result
    }

    /// These changes, then `later` on top: a field changed by both takes the later value.
    public func followed(by later: FieldChanges) -> FieldChanges {
        var merged = self
        for (name, value) in later.fields { merged[name] = .some(value) }
        return merged
    }

    /// Only the fields not named in `names`.
    public func without(_ names: [String]) -> FieldChanges {
        var kept = self
        for name in names { kept[name] = nil }
        return kept
    }

    public static func == (lhs: FieldChanges, rhs: FieldChanges) -> Bool {
        lhs.fields.count == rhs.fields.count && lhs.fields.allSatisfy { rhs[$0.name] == .some($0.value) }
    }

    /// `{"set": {FIELD: VALUE, ...}, "remove": [FIELD, ...]}`, as the outbox stores it.
    public var json: JSONValue {
        var set = JSONObject()
        var removed: [JSONValue] = []
        for (name, value) in fields {
            if let value { set[name] = value } else { removed.append(.string(name)) }
        }
        return .object(JSONObject([("set", .object(set)), ("remove", .array(removed))]))
    }

    /// Reads what `json` wrote; nil when the text is not that shape.
    public init?(json text: String) {
        guard let object = (try? JSONParser.parse(text))?.objectValue,
              let set = object["set"]?.objectValue, let removed = object["remove"]?.arrayValue else { return nil }
        for (name, value) in set { self[name] = .some(value) }
        for name in removed {
            guard let name = name.stringValue else { return nil }
            self[name] = .some(nil)
        }
    }
}
