import LibHTTPServer
@testable import LibServer

extension LibraryService {
    /// A request handled in this process, without a socket, as an event
    /// loop handles it (what needs no waiting first): the path may carry a
    /// query; the token goes as a bearer.
    func answer(_ method: String, _ path: String, token: String? = nil, headers: [(String, String)] = [],
                body: String = "") throws -> HTTPResponse {
        var fields = HTTPHeaders(headers)
        if let token { fields.add("Authorization", "Bearer \(token)") }
        if !body.isEmpty { fields.add("Content-Type", "application/json") }
        let parts = path.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        for pair in parts.dropFirst().first?.split(separator: "&") ?? [] {
            let field = pair.split(separator: "=", maxSplits: 1)
            query[String(field[0])] = field.count > 1 ? String(field[1]) : ""
        }
        let request = HTTPRequest(method: method, target: path, path: String(parts[0]), query: query, headers: fields,
                                  body: Array(body.utf8), remoteAddress: "127.0.0.1:40000")
        guard case .respond(let response) = answerWithoutWaiting(request) ?? handle(request) else { throw RouteTestFailure.noResponse }
        return response
    }
}
