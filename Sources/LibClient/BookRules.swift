import LibBase
import LibBookSchema
import LibJSON

/// The rules lib checks a book with before saving it in the outbox (so that
/// writes the server would refuse with 422 never queue): the schema the
/// account's server served (`LibBookSchema`), or the built-in one until it
/// has been fetched. One sentence per problem, each naming the field; an
/// unknown field gets the nearest known name as a suggestion.
public struct BookRules: Sendable {
    public let schema: BookSchema

    public init(schema: BookSchema) { self.schema = schema }

    /// The built-in rules (`BuiltInBookSchema`).
    public static let builtIn = BookRules(schema: BuiltInBookSchema.schema)

    public var fields: [String] { schema.fields }

    /// One sentence per problem; empty when valid.
    public func problems(in document: JSONValue, id: String) -> [String] {
        fieldProblems(in: document, id: id).map(\.sentence)
    }

    /// The problems, an unknown field's naming the nearest known one.
    public func fieldProblems(in document: JSONValue, id: String) -> [FieldProblem] {
        schema.problems(in: document, id: id).map { problem in
            guard problem.isUnknownField, let near = Suggestions.nearest(to: problem.field, among: fields).first else {
                return problem
            }
            return FieldProblem(field: problem.field, detail: "is not a field of a book (did you mean '\(near)'?); the fields are \(fields.joined(separator: ", "))",
                                isUnknownField: true)
        }
    }
}
