import LibJSON

/// The rules of a book document, read from its JSON Schema: the one place
/// both lib-server (which refuses an invalid book with 422) and lib (which
/// refuses to save one in the outbox) take them from. The top level must be
/// an object schema; each problem names its top-level field.
public struct BookSchema: Sendable, Equatable {
    /// The schema as text, as served at `GET /v1/schemas/book`.
    public let text: String
    let root: SchemaNode

    public init(text: String) throws(SchemaError) {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw SchemaError("the book schema is not valid JSON: \(error)") }
        root = try SchemaNode(value, at: "#")
        guard root.types == ["object"] else { throw SchemaError("the book schema must have \"type\": \"object\"") }
        self.text = text
    }

    /// The fields a book may have, in the schema's order.
    public var fields: [String] { root.properties.map(\.name) }

    /// The problems of `document` as the book at path id `id`; empty when
    /// valid. Besides the schema, `id` (when present) must equal the path's.
    public func problems(in document: JSONObject, id: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for (key, value) in document {
            if key == "id", value.stringValue != id {
                problems.append(FieldProblem(field: "id", detail: "must be \"\(id)\", the id in the path"))
                continue
            }
            if let property = root.properties.first(where: { $0.name == key }) {
                if let problem = property.schema.fieldProblem(key, value) { problems.append(problem) }
            } else {
                switch root.additionalProperties {
                case .allowed: break
                case .checked(let extra):
                    if let problem = extra.node.fieldProblem(key, value) { problems.append(problem) }
                case .forbidden:
                    problems.append(FieldProblem(field: key, detail: "is not a field of a book; the fields are \(fields.joined(separator: ", "))",
                                                 isUnknownField: true))
                }
            }
        }
        for name in root.required where document[name] == nil {
            problems.append(FieldProblem(field: name, detail: "is required"))
        }
        return problems
    }

    /// The problems of any JSON value offered as a book.
    public func problems(in value: JSONValue, id: String) -> [FieldProblem] {
        guard let object = value.objectValue else {
            return [FieldProblem(field: "", detail: "a book must be a JSON object, not \(value.typeName)")]
        }
        return problems(in: object, id: id)
    }

    public static func == (a: BookSchema, b: BookSchema) -> Bool { a.text == b.text }
}
