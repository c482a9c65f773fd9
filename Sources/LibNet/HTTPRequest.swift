import LibBase

/// One HTTP request: method, absolute URL, header fields and body bytes.
public struct HTTPRequest: Sendable, Equatable, CustomStringConvertible {
    public var method: String
    /// An absolute `http://` or `https://` URL; IPv6 literals in brackets.
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Shortens the transport's total timeout (and so its connect timeout)
    /// for this request: what is left of a budget such as `push --wait`.
    public var timeout: Duration?

    public init(
        method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The server the URL names, or nil when the URL is not http(s).
    public var endpoint: ServerOrigin? { ServerOrigin(requestURL: url) }

    /// `METHOD URL` and the headers with credentials redacted; never the body.
    public var description: String {
        "\(method) \(url)\n\(headers)"
    }
}
