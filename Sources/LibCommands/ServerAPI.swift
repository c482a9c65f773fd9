import LibAccounts
import LibJSON
import LibNet

/// Protocol v1 requests to one server, as one account (or none, to sign in).
/// Sends through the given transport, so one connection serves a whole push.
struct ServerAPI {
    let transport: any HTTPTransport
    let origin: ServerOrigin
    /// The bearer token; nil before sign-in.
    let token: String?

    var endpoint: ServerEndpoint {
        ServerEndpoint(scheme: origin.scheme, host: origin.host, port: UInt16(origin.port))
    }

    /// Sends a request to `/v1/...`; every HTTP status comes back as a response.
    func send(_ method: String, _ target: String, headers: [(String, String)] = [], json: JSONValue? = nil,
              timeout: Double? = nil) throws(TransportFailure) -> HTTPResponse {
        var fields = HTTPHeaders()
        fields.add("Accept", "application/json")
        if let token { fields.add("Authorization", "Bearer \(token)") }
        for (name, value) in headers { fields.add(name, value) }
        var body: [UInt8] = []
        if let json {
            fields.add("Content-Type", "application/json")
            body = json.utf8Bytes
        }
        let request = HTTPRequest(method: method, url: origin.url + target, headers: fields, body: body,
                                  timeout: timeout.map { .milliseconds(Int64($0 * 1000)) })
        return try transport.send(request)
    }

    /// The failure an answer stands for (401, 429, 5xx, 3xx), if any.
    func failure(for response: HTTPResponse) -> TransportFailure? {
        TransportFailure(response: response, endpoint: endpoint)
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONParser.parse(body) }

    var isJSON: Bool {
        guard let type = headers["Content-Type"]?.split(separator: ";").first?.lowercased() else { return false }
        let media = type.trimmingCharacters(in: " ")
        return media == "application/json" || media.hasSuffix("+json")
    }

    /// The problem detail's sentence, or the status when the server sent none.
    var problemDetail: String {
        if let detail = json?["detail"]?.stringValue, !detail.isEmpty { return detail }
        return "the server answered \(status)" + (reason.isEmpty ? "" : " \(reason)")
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
