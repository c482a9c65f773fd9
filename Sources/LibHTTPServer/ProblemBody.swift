import LibJSON

/// The JSON of an RFC 9457 problem, for the answers the HTTP layer makes itself.
enum ProblemBody {
    static func json(status: Int, detail: String) -> [UInt8] {
        let title = HTTPStatus.reasonPhrase(status)
        let problem: JSONValue = [
            "type": "about:blank", "title": .string(title.isEmpty ? "Error" : title),
            "status": .integer(Int64(status)), "detail": .string(detail),
        ]
        return problem.utf8Bytes
    }
}
