import LibCLI
import LibJSON
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

    /// Applies every assignment to `document`, in order (a later one wins).
    static func apply(_ assignments: [FieldAssignment], to document: JSONObject) throws(UsageError) -> JSONObject {
        var result = document
        for assignment in assignments { result[assignment.field] = try assignment.jsonValue() }
        return result
    }
}
