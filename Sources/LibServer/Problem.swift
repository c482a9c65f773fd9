import LibBookSchema
import LibHTTPServer
import LibJSON

/// An RFC 9457 problem detail, the body of every error answer.
struct Problem {
    let status: Int
    let title: String
    let detail: String
    var type = "about:blank"
    var extra: [(String, JSONValue)] = []
    var headers: [(String, String)] = []

    var json: JSONValue {
        var object = JSONObject([
            ("type", .string(type)), ("title", .string(title)), ("status", .integer(Int64(status))), ("detail", .string(detail)),
        ])
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    var response: HTTPResponse {
        var h = HTTPHeaders([("Content-Type", "application/problem+json")])
        for (name, value) in headers { h.add(name, value) }
        return HTTPResponse(status: status, headers: h, body: json.utf8Bytes)
    }

    static func badRequest(_ detail: String) -> Problem { Problem(status: 400, title: "Bad Request", detail: detail) }
    static func unauthorized(_ detail: String) -> Problem {
        Problem(status: 401, title: "Unauthorized", detail: detail, headers: [("WWW-Authenticate", "Bearer realm=\"lib\"")])
    }
    static func forbidden(_ detail: String) -> Problem { Problem(status: 403, title: "Forbidden", detail: detail) }
    static func notFound(_ detail: String) -> Problem { Problem(status: 404, title: "Not Found", detail: detail) }
    static func unprocessable(_ detail: String, problems: [FieldProblem] = []) -> Problem {
        var p = Problem(status: 422, title: "Unprocessable Content", detail: detail)
        if !problems.isEmpty {
            p.extra = [("errors", .array(problems.map { ["field": .string($0.field), "detail": .string($0.detail)] }))]
        }
        return p
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ value: JSONValue, etag: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if let etag { headers.add("ETag", etag) }
        return HTTPResponse(status: status, headers: headers, body: value.utf8Bytes)
    }
}
