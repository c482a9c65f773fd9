/// One `FIELD=STRING` or `FIELD:=JSON` argument of `lib edit` (httpie's
/// convention). The JSON is not parsed here: `edit` does that.
public struct FieldAssignment: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        /// `FIELD=STRING`: the text is the field's string value.
        case string(String)
        /// `FIELD:=JSON`: the text is JSON, still to be parsed.
        case json(String)
    }

    public let field: String
    public let value: Value

    public init(field: String, value: Value) {
        self.field = field
        self.value = value
    }

    /// Splits at the first `=`; a `:` right before it makes the value JSON.
    /// `nil` when there is no `=` or the field name is empty.
    public init?(parsing argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        var field = argument[..<equals]
        let rest = String(argument[argument.index(after: equals)...])
        let isJSON = field.last == ":"
        if isJSON { field = field.dropLast() }
        guard !field.isEmpty else { return nil }
        self.field = String(field)
        self.value = isJSON ? .json(rest) : .string(rest)
    }
}
