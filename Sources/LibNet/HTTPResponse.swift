import LibBase

/// A complete HTTP response: status, header fields (case-insensitive) and body.
public struct HTTPResponse: Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// The reason phrase of the status line ("Service Unavailable"); empty
    /// over HTTP/2, which has none.
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The proxy the answer came through, when one was in effect: a 5xx
    /// may then be the proxy's own.
    public var proxy: ProxySetting?
    /// When the answer arrived (seconds since 1970, the transport's clock):
    /// a `Retry-After` date counts from it.
    public var receivedAt: Int

    public init(status: Int, reason: String = "", headers: HTTPHeaders = [:], body: [UInt8] = [], proxy: ProxySetting? = nil,
                receivedAt: Int = 0) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.proxy = proxy
        self.receivedAt = receivedAt
    }

    /// The delay the server asked for with `Retry-After`, if any.
    public var retryAfter: RetryAfter? {
        headers["Retry-After"].flatMap { RetryAfter(headerValue: $0, now: receivedAt) }
    }

    /// Whether the body is an RFC 9457 problem (`application/problem+json`),
    /// the only kind of error the library server sends.
    public var isProblemJSON: Bool {
        mediaType == MediaType.problemJSON
    }

    /// The Content-Type's media type, lowercased, without parameters; nil without one.
    public var mediaType: String? {
        headers["Content-Type"].map { MediaType.of(contentType: $0) }
    }

    /// The status and headers (credentials redacted), and the body's size.
    public var description: String {
        "\(status) \(reason)\n\(headers)\n(\(body.count) bytes)"
    }

    /// Parses the header block of one response ("HTTP/1.1 200 OK\r\nName:
    /// value\r\n...") into its reason phrase and fields. Obsolete line folding
    /// (RFC 9112 §5.2) is joined with a space.
    static func parseHeaderBlock(_ bytes: [UInt8]) -> (reason: String, headers: HTTPHeaders) {
        var reason = ""
        var headers = HTTPHeaders()
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        for (index, rawLine) in lines.enumerated() {
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            let text = String(decoding: line, as: UTF8.self)
            if index == 0 && text.hasPrefix("HTTP/") {
                // "HTTP/1.1 503 Service Unavailable": the reason is after the second space.
                let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                reason = parts.count == 3 ? String(parts[2]) : ""
                continue
            }
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t"), var last = headers.fields.last {
                last.value += " " + text.trimmingSpacesAndTabs()
                var fields = headers.fields
                fields[fields.count - 1] = last
                headers = HTTPHeaders(fields: fields)
                continue
            }
            guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { continue }
            headers.add(String(text[..<colon]), text[text.utf8.index(after: colon)...].trimmingSpacesAndTabs())
        }
        return (reason, headers)
    }
}

