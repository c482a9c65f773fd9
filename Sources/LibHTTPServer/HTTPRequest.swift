/// One request as received: the raw target plus its decoded path and query.
public struct HTTPRequest: Sendable {
    /// As sent; methods are case-sensitive (RFC 9110 §9.1).
    public let method: String
    /// The raw request-target, e.g. `/v1/books?after=b-3&limit=2`.
    public let target: String
    /// The percent-decoded path without the query, e.g. `/v1/books`.
    public let path: String
    /// Percent-decoded query parameters; `+` is not a space. When a name
    /// repeats, the first value wins.
    public let query: [String: String]
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// The peer as `ADDRESS:PORT` (`[ADDRESS]:PORT` for IPv6).
    public let remoteAddress: String
    /// The peer's address without the port: what per-peer limits count.
    public var peerAddress: String { HTTPServer.peerAddress(remoteAddress) }
    /// `HTTP/1.0` or `HTTP/1.1`.
    public let version: String

    public init(
        method: String, target: String, path: String, query: [String: String],
        headers: HTTPHeaders, body: [UInt8], remoteAddress: String, version: String = "HTTP/1.1"
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.version = version
    }
}
