import LibCLI
import LibJSON
import LibBookSchema
import LibClient

extension FieldAssignment {
    /// The JSON value this assignment gives its field. A `FIELD:=JSON` whose
    /// text is not JSON is a usage error (exit 2): the argument itself cannot
    /// be read, before any rule of the document is checked.
    func jsonValue() throws(UsageError) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(text)
        case .json(let text):
            do {
                return try JSONParser.parse(text)
            } catch {
                throw UsageError("'\(field):=\(text)' is not valid JSON (\(error.reason)); quote strings as in \(field):='\"text\"', or use \(field)=text", command: "edit")
            }
        }
    }

    /// The problems of a document made with these assignments, and for a
    /// `FIELD=VALUE` whose value is a number (or true, false) refused as a
    /// string, how to give it as one: "to give year as a number, write
    /// `year:=1813`".
    static func problemsWithHints(_ problems: [FieldProblem], _ assignments: [FieldAssignment]) -> [String] {
        var hinted = problems.map(\.sentence)
        for assignment in assignments {
            guard case .string(let text) = assignment.value,
                  problems.contains(where: { $0.field == assignment.field && $0.refusedType == "string" }),
                  let parsed = try? JSONParser.parse(text), parsed.stringValue == nil, parsed != .null
            else { continue }
            let what = parsed.boolValue == nil ? "a number" : "true or false"
            hinted.append("to give \(assignment.field) as \(what), write `\(assignment.field):=\(text)`")
        }
        return hinted
    }

    /// Applies every assignment to `document`, in order (a later one wins).
    static func apply(_ assignments: [FieldAssignment], to document: JSONObject) throws(UsageError) -> JSONObject {
        var result = document
        for assignment in assignments { result[assignment.field] = try assignment.jsonValue() }
        return result
    }
}
