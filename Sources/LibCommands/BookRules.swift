import LibBookSchema
import LibCLI
import LibJSON
import LibSync

/// The rules lib checks a book with before saving it in the outbox (so that
/// writes the server would refuse with 422 never queue): the schema the
/// account's server served (`LibBookSchema`), or the built-in one until it
/// has been fetched. One sentence per problem, each naming the field; an
/// unknown field gets the nearest known name as a suggestion.
struct BookRules {
    let schema: BookSchema

    /// The built-in rules (`BuiltInBookSchema`).
    static let builtIn = BookRules(schema: BuiltInBookSchema.schema)

    /// The account's stored schema; the built-in one when none was fetched
    /// yet or the stored text cannot be applied.
    static func forAccount(_ store: AccountStore) throws -> BookRules {
        guard let stored = try store.cache.bookSchema(), let schema = try? BookSchema(text: stored.text) else {
            return builtIn
        }
        return BookRules(schema: schema)
    }

    var fields: [String] { schema.fields }

    /// One sentence per problem; empty when valid.
    func problems(in document: JSONValue, id: String) -> [String] {
        schema.problems(in: document, id: id).map { problem in
            guard problem.isUnknownField, let near = Suggestions.nearest(to: problem.field, among: fields).first else {
                return problem.sentence
            }
            return "'\(problem.field)' is not a field of a book (did you mean '\(near)'?); the fields are \(fields.joined(separator: ", "))"
        }
    }
}
