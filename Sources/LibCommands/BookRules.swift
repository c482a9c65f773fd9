import LibCLI
import LibJSON

/// The rules of a book document that can be checked on this device, the
/// same ones lib-server applies (DESIGN.md, Protocol v1): `id` matches the
/// path, `title` is a string of 1 to 500 characters and required, `author`
/// a string, `year` an integer, `copies` an integer ≥ 0, `tags` an array of
/// strings, and no other field. Checking them before saving keeps writes the
/// server would refuse (422) out of the outbox.
enum BookRules {
    static let fields = ["id", "title", "author", "year", "copies", "tags"]

    /// One sentence per problem, each naming the field; empty when valid.
    static func problems(in document: JSONValue, id: String) -> [String] {
        guard let object = document.objectValue else {
            return ["a book must be a JSON object, not \(document.typeName)"]
        }
        var problems: [String] = []
        for (key, value) in object {
            if let problem = problem(field: key, value: value, id: id) { problems.append(problem) }
        }
        if object["title"] == nil { problems.append("'title' is required") }
        return problems
    }

    /// What is wrong with one field's value, or nil when it is fine.
    static func problem(field: String, value: JSONValue, id: String) -> String? {
        switch field {
        case "id":
            return value.stringValue == id ? nil : "'id' must be \"\(id)\", the id in the path"
        case "title":
            guard let title = value.stringValue else { return "'title' must be a string, not \(value.typeName)" }
            return (1...500).contains(title.count) ? nil : "'title' must be 1 to 500 characters long (it has \(title.count))"
        case "author":
            return value.stringValue == nil ? "'author' must be a string, not \(value.typeName)" : nil
        case "year":
            return value.integerValue == nil ? "'year' must be an integer, not \(value.typeName)" : nil
        case "copies":
            guard let copies = value.integerValue else { return "'copies' must be an integer, not \(value.typeName)" }
            return copies < 0 ? "'copies' must be 0 or more (not \(copies))" : nil
        case "tags":
            guard let tags = value.arrayValue else { return "'tags' must be an array of strings, not \(value.typeName)" }
            if let index = tags.firstIndex(where: { $0.stringValue == nil }) {
                return "'tags' must be an array of strings (item \(index) is \(tags[index].typeName))"
            }
            return nil
        default:
            let near = Suggestions.nearest(to: field, among: fields).first.map { " (did you mean '\($0)'?)" } ?? ""
            return "'\(field)' is not a field of a book\(near); the fields are \(fields.joined(separator: ", "))"
        }
    }
}
