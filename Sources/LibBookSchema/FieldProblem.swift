/// One reason a book document is invalid, naming the field.
public struct FieldProblem: Sendable, Equatable {
    /// The top-level field ("" when the document itself is wrong).
    public let field: String
    /// What is wrong, after the field's name: "must be an integer, not string".
    public let detail: String
    /// The field is not one the schema knows: the client may suggest a near name.
    public let isUnknownField: Bool
    /// The JSON type of a value refused for its type ("string" when a
    /// number was wanted): the client may say how to give the right one.
    public let refusedType: String?

    public init(field: String, detail: String, isUnknownField: Bool = false, refusedType: String? = nil) {
        self.field = field
        self.detail = detail
        self.isUnknownField = isUnknownField
        self.refusedType = refusedType
    }

    /// "'year' must be an integer, not string".
    public var sentence: String { field.isEmpty ? detail : "'\(field)' \(detail)" }
}
