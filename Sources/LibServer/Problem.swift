import LibBookSchema
import LibHTTPServer
import LibJSON

/// An RFC 9457 problem detail, the body of every error answer.
struct Problem {
    let status: Int
    let detail: String
    var type = "about:blank"
    var extra: [(String, JSONValue)] = []
    var headers: [(String, String)] = []

    /// The standard reason phrase of `status` (RFC 9110).
    var title: String { HTTPStatus.reasonPhrase(status) }

    var json: JSONValue { ProblemBody.value(status: status, detail: detail, type: type, extra: extra) }

    var response: HTTPResponse {
        var h = HTTPHeaders([("Content-Type", MediaType.problemJSON)])
        for (name, value) in headers { h.add(name, value) }
        return HTTPResponse(status: status, headers: h, body: json.utf8Bytes)
    }

    static func badRequest(_ detail: String) -> Problem { Problem(status: 400, detail: detail) }
    static func unauthorized(_ detail: String) -> Problem {
        Problem(status: 401, detail: detail, headers: [("WWW-Authenticate", "Bearer realm=\"lib\"")])
    }
    static func forbidden(_ detail: String) -> Problem { Problem(status: 403, detail: detail) }
    static func notFound(_ detail: String) -> Problem { Problem(status: 404, detail: detail) }
    static func unprocessable(_ detail: String, problems: [FieldProblem] = []) -> Problem {
        var p = Problem(status: 422, detail: detail)
        if !problems.isEmpty {
            p.extra = [("errors", .array(problems.map { ["field": .string($0.field), "detail": .string($0.detail)] }))]
        }
        return p
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ value: JSONValue, etag: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders([("Content-Type", MediaType.json)])
        if let etag { headers.add("ETag", etag) }
        return HTTPResponse(status: status, headers: headers, body: value.utf8Bytes)
    }
}
