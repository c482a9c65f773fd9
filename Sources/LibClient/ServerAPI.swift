import LibJSON
import LibNet
import LibBase

/// Protocol v1 requests to one server, as one account (or none, to sign in).
/// Sends through the given transport, so one connection serves a whole push.
public struct ServerAPI: Sendable {
    public let transport: any HTTPTransport
    public let origin: ServerOrigin
    /// The bearer token; nil before sign-in.
    public let token: String?
    /// Monotonic seconds by which every request must be over (`push
    /// --wait`): each one's timeouts are capped to what is left. nil: none.
    public var deadline: Double? = nil

    public init(transport: any HTTPTransport, origin: ServerOrigin, token: String?, deadline: Double? = nil) {
        self.transport = transport
        self.origin = origin
        self.token = token
        self.deadline = deadline
    }

    public var endpoint: ServerOrigin { origin }

    /// Sends a request to `/v1/...`; every HTTP status comes back as a response.
    public func send(_ method: String, _ target: String, headers: [(String, String)] = [], json: JSONValue? = nil,
              timeout: Double? = nil) throws(TransportFailure) -> HTTPResponse {
        var fields = HTTPHeaders()
        fields.add("Accept", MediaType.json)
        if let token { fields.add("Authorization", "Bearer \(token)") }
        for (name, value) in headers { fields.add(name, value) }
        var body: [UInt8] = []
        if let json {
            fields.add("Content-Type", MediaType.json)
            body = json.utf8Bytes
        }
        var limit = timeout
        if let left = secondsLeft { limit = min(limit ?? left, left) }
        let request = HTTPRequest(method: method, url: origin.url + target, headers: fields, body: body,
                                  timeout: limit.map { .milliseconds(max(1, Int64($0 * 1000))) })
        return try transport.send(request)
    }

    /// A lost connection through a proxy says little: the proxy may have
    /// closed it while refusing the write's body because it could not reach
    /// the server. One small GET through the same proxy tells (its own 5xx
    /// page), so that the user hears whose fault it is. Any other failure,
    /// or no proxy, is returned as it is.
    public func explainedThroughProxy(_ failure: TransportFailure) -> TransportFailure {
        guard failure.proxy != nil, case .connectionLost = failure.kind else { return failure }
        let budget = min(2, secondsLeft ?? 2)
        guard budget > 0.05, let answer = try? send("GET", "/v1/me", timeout: budget),
              let explained = self.failure(for: answer), case .proxyCouldNotReachServer = explained.kind
        else { return failure }
        return explained
    }

    /// What is left before the deadline, in seconds (never negative); nil without one.
    public var secondsLeft: Double? { deadline.map { max(0, $0 - MonotonicClock.now()) } }

    /// The failure an answer stands for (401, 429, 5xx, 3xx), if any.
    public func failure(for response: HTTPResponse) -> TransportFailure? {
        TransportFailure(response: response, endpoint: endpoint)
    }
}

extension HTTPResponse {
    public var json: JSONValue? { try? JSONParser.parse(body) }

    public var isJSON: Bool { MediaType.isJSON(mediaType) }

    /// "200 text/html", "204 without a content type": what an answer was, for
    /// saying what came instead of the library server's.
    public var seen: String {
        "\(status) " + (mediaType ?? (body.isEmpty ? "with no body" : "without a content type"))
    }

    /// The problem detail's sentence, or the status when the server sent none.
    public var problemDetail: String {
        if let detail = json?["detail"]?.stringValue, !detail.isEmpty { return detail }
        return "the server answered \(status)" + (reason.isEmpty ? "" : " \(reason)")
    }
}

