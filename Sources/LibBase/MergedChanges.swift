import LibJSON

/// Under protocol v2, a write the server applied on top of a version newer
/// than the one it was made against: the fields others changed in between
/// (none of them a field the write changes) and who changed them.
public struct MergedChanges: Sendable, Equatable {
    public let fields: [String]
    public let by: [String]

    /// From `{"fields": [...], "by": [...]}`, as the server's result says it
    /// and the pushed log keeps it; what is not a string is left out.
    public init(json: JSONValue) {
        fields = json["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        by = json["by"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    public var json: JSONValue {
        ["fields": .array(fields.map { .string($0) }), "by": .array(by.map { .string($0) })]
    }

    /// "merged with bob's change to copies", "merged with alice's and bob's
    /// changes to copies and year".
    public var sentence: String {
        let whose = by.isEmpty ? "others'" : Self.list(by.map { $0 + "'s" })
        let what = fields.isEmpty ? "" : " to " + Self.list(fields)
        return "merged with \(whose) \(fields.count == 1 ? "change" : "changes")\(what)"
    }

    private static func list(_ words: [String]) -> String {
        words.count <= 2 ? words.joined(separator: " and ") : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }
}
