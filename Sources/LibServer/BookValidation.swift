import LibJSON

/// One reason a book document is invalid, naming the field.
struct FieldProblem: Sendable, Equatable {
    let field: String
    let detail: String

    var sentence: String { "'\(field)' \(detail)" }
}

/// The rules of a book document (DESIGN.md, Protocol v1): `id` (matches the
/// path), `title` (required, 1–500 characters), `author`, `year` (integer),
/// `copies` (integer ≥ 0), `tags` (array of strings). Nothing else.
enum BookValidation {
    static let fields = ["id", "title", "author", "year", "copies", "tags"]

    /// The problems with `document` for the book at `id`; empty when valid.
    static func problems(in document: JSONObject, id: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for (key, value) in document {
            switch key {
            case "id":
                if value.stringValue != id {
                    problems.append(FieldProblem(field: "id", detail: "must be \"\(id)\", the id in the path"))
                }
            case "title":
                guard let title = value.stringValue else {
                    problems.append(FieldProblem(field: "title", detail: "must be a string, not \(value.typeName)"))
                    continue
                }
                if title.isEmpty || title.count > 500 {
                    problems.append(FieldProblem(field: "title", detail: "must be 1 to 500 characters long (it has \(title.count))"))
                }
            case "author":
                if value.stringValue == nil {
                    problems.append(FieldProblem(field: "author", detail: "must be a string, not \(value.typeName)"))
                }
            case "year":
                if value.integerValue == nil {
                    problems.append(FieldProblem(field: "year", detail: "must be an integer, not \(value.typeName)"))
                }
            case "copies":
                if let copies = value.integerValue {
                    if copies < 0 { problems.append(FieldProblem(field: "copies", detail: "must be 0 or more")) }
                } else {
                    problems.append(FieldProblem(field: "copies", detail: "must be an integer, not \(value.typeName)"))
                }
            case "tags":
                guard let tags = value.arrayValue else {
                    problems.append(FieldProblem(field: "tags", detail: "must be an array of strings, not \(value.typeName)"))
                    continue
                }
                if let index = tags.firstIndex(where: { $0.stringValue == nil }) {
                    problems.append(FieldProblem(field: "tags", detail: "must be an array of strings (item \(index) is \(tags[index].typeName))"))
                }
            default:
                problems.append(FieldProblem(field: key, detail: "is not a field of a book (fields: \(fields.joined(separator: ", ")))"))
            }
        }
        if document["title"] == nil {
            problems.append(FieldProblem(field: "title", detail: "is required"))
        }
        return problems
    }

    /// The document as stored: `id` first, then the other fields as sent.
    static func normalized(_ document: JSONObject, id: String) -> JSONObject {
        var result = JSONObject([("id", .string(id))])
        for (key, value) in document where key != "id" { result[key] = value }
        return result
    }

    /// Book ids are path segments: letters, digits and `-._~`, 1 to 128 of them.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
        } && id != "." && id != ".."
    }
}
