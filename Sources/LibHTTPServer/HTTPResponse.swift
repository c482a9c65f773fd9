/// An answer to send: status, header fields and body. The server adds
/// `Content-Length`, `Date` and `Connection` itself.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An `application/problem+json` answer (RFC 9457) with `type` about:blank,
    /// the standard title for `status`, and `detail`.
    public static func problem(status: Int, detail: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", MediaType.problemJSON)
        return HTTPResponse(status: status, headers: headers, body: ProblemBody.json(status: status, detail: detail))
    }
}

/// What the handler wants done with the connection.
public enum HTTPReply: Sendable {
    case respond(HTTPResponse)
    /// Close the socket and send nothing (fault injection: a lost response).
    case closeWithoutAnswer
    /// Send this many bytes of the serialized response, then close (fault
    /// injection: the connection is lost mid-answer).
    case truncate(HTTPResponse, afterBytes: Int)
    /// The answer comes later, from `PendingReply.complete`; meanwhile the
    /// connection holds no thread.
    case later(PendingReply)
}

extension HTTPResponse {
    /// How many bytes the status line and header fields take on the wire
    /// (without a `Connection` field), so that a fault can cut an answer
    /// inside its body.
    public var serializedHeadLength: Int {
        ResponseSerializer.serialize(self, headOnly: true, connection: nil).count
    }
}
