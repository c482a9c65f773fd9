import Glibc
import Testing

@testable import LibNet
import LibBase

/// CURLcode values (curl/curl.h), spelled out so the tests read like the table.
private enum Curl {
    static let unsupportedProtocol: Int32 = 1
    static let couldntResolveProxy: Int32 = 5
    static let couldntResolveHost: Int32 = 6
    static let couldntConnect: Int32 = 7
    static let weirdServerReply: Int32 = 8
    static let partialFile: Int32 = 18
    static let operationTimedOut: Int32 = 28
    static let sslConnectError: Int32 = 35
    static let gotNothing: Int32 = 52
    static let sendError: Int32 = 55
    static let recvError: Int32 = 56
    static let peerFailedVerification: Int32 = 60
    static let sslCACertBadFile: Int32 = 77
}

@Suite struct ClassificationTests {
    @Test(arguments: [
        (CurlDiagnostics(code: Curl.couldntConnect, osErrno: ECONNREFUSED), TransportFailure.Kind.connectionRefused),
        (CurlDiagnostics(code: Curl.couldntConnect, osErrno: ENETUNREACH), .noRoute),
        (CurlDiagnostics(code: Curl.couldntConnect, osErrno: EHOSTUNREACH), .noRoute),
        (CurlDiagnostics(code: Curl.couldntConnect, osErrno: ETIMEDOUT), .connectTimeout),
        (CurlDiagnostics(code: Curl.couldntResolveHost), .dnsFailure),
        (CurlDiagnostics(code: Curl.couldntResolveProxy), .proxyNotResolved),
        (CurlDiagnostics(code: Curl.operationTimedOut, osErrno: 0, connected: false), .connectTimeout),
        (CurlDiagnostics(code: Curl.operationTimedOut, osErrno: 0, connected: true), .responseTimeout),
        (CurlDiagnostics(code: Curl.operationTimedOut, connected: false, resolved: false), .dnsFailure),
        (CurlDiagnostics(code: Curl.peerFailedVerification, tlsVerifyResult: 18), .tlsUntrusted),
        (CurlDiagnostics(code: Curl.peerFailedVerification, tlsVerifyResult: 20), .tlsUntrusted),
        (CurlDiagnostics(code: Curl.peerFailedVerification, tlsVerifyResult: 10), .tlsUntrusted),
        (CurlDiagnostics(code: Curl.peerFailedVerification, tlsVerifyResult: 1), .tlsNameMismatch),
        (CurlDiagnostics(code: Curl.peerFailedVerification, tlsVerifyResult: 62), .tlsNameMismatch),
        (CurlDiagnostics(code: Curl.sslConnectError), .tlsHandshake),
        (CurlDiagnostics(code: Curl.sslCACertBadFile), .tlsCABundleUnreadable),
        (CurlDiagnostics(code: Curl.gotNothing), .connectionLost),
        (CurlDiagnostics(code: Curl.partialFile), .connectionLost),
        (CurlDiagnostics(code: Curl.recvError, osErrno: ECONNRESET), .connectionLost),
        (CurlDiagnostics(code: Curl.sendError, osErrno: EPIPE), .connectionLost),
        (CurlDiagnostics(code: Curl.weirdServerReply), .notHTTP),
        (CurlDiagnostics(code: Curl.unsupportedProtocol), .notHTTP),
    ])
    func curlOutcome(_ diagnostics: CurlDiagnostics, _ expected: TransportFailure.Kind) {
        #expect(diagnostics.kind == expected, "\(diagnostics)")
    }

    @Test func unknownCurlCodeKeepsLibcurlsWords() {
        let diagnostics = CurlDiagnostics(code: 27, message: "Out of memory")
        #expect(diagnostics.kind == .other(reason: "Out of memory"))
    }

    static let endpoint = ServerOrigin(scheme: "https", host: "books.example", port: 443)

    @Test func httpStatusesThatAreFailures() {
        func kind(_ status: Int, _ headers: HTTPHeaders = [:], reason: String = "") -> TransportFailure.Kind? {
            TransportFailure(response: HTTPResponse(status: status, reason: reason, headers: headers), endpoint: Self.endpoint)?.kind
        }
        #expect(kind(401) == .unauthorized)
        #expect(kind(429, ["retry-after": "7"]) == .rateLimited(retryAfter: RetryAfter(seconds: 7)))
        #expect(kind(429) == .rateLimited(retryAfter: nil))
        #expect(
            kind(503, ["Retry-After": "5"], reason: "Service Unavailable")
                == .serverError(status: 503, reason: "Service Unavailable", retryAfter: RetryAfter(seconds: 5)))
        #expect(kind(500) == .serverError(status: 500, reason: "", retryAfter: nil))
        #expect(kind(301, ["location": "https://elsewhere.example/"]) == .redirected(status: 301, location: "https://elsewhere.example/"))
        for status in [200, 201, 204, 304, 400, 403, 404, 409, 412, 422, 428] {
            #expect(kind(status) == nil, "\(status) is for the caller to handle")
        }
    }

    @Test func retryAfterForms() {
        #expect(RetryAfter(headerValue: "120", now: 0) == RetryAfter(seconds: 120))
        #expect(RetryAfter(headerValue: " 5 ", now: 0) == RetryAfter(seconds: 5))
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777.
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 30) == RetryAfter(seconds: 30))
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 30) == RetryAfter(seconds: 0))
        #expect(RetryAfter(headerValue: "soon", now: 0) == nil)
        #expect(RetryAfter(headerValue: "-3", now: 0) == nil)
        #expect(RetryAfter(headerValue: "", now: 0) == nil)
    }

    @Test func endpointsFromURLs() {
        #expect(ServerOrigin(requestURL: "https://books.example/v1/me") == ServerOrigin(scheme: "https", host: "books.example", port: 443))
        #expect(ServerOrigin(requestURL: "http://127.0.0.1:8080") == ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080))
        #expect(ServerOrigin(requestURL: "HTTP://u:p@h.example:81/x?y") == ServerOrigin(scheme: "http", host: "h.example", port: 81))
        let v6 = ServerOrigin(requestURL: "https://[2001:db8::1]:8443/v1")
        #expect(v6 == ServerOrigin(scheme: "https", host: "2001:db8::1", port: 8443))
        #expect(v6?.hostAndPort == "[2001:db8::1]:8443")
        #expect(ServerOrigin(requestURL: "http://[::1]/")?.port == 80)
        #expect(ServerOrigin(requestURL: "ftp://h.example/") == nil)
        #expect(ServerOrigin(requestURL: "http://h.example:99999/") == nil)
        #expect(ServerOrigin(requestURL: "http:///path") == nil)
        #expect(ServerOrigin(requestURL: "books") == nil)
    }

    @Test func headersAreCaseInsensitiveAndRedacted() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": "\"v1\""]
        headers.add("Authorization", "Bearer tok-UNIT-1")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["ETAG"] == "\"v1\"")
        headers.set("etag", "\"v2\"")
        #expect(headers.values(for: "ETag") == ["\"v2\""])
        #expect(!headers.description.contains("tok-UNIT-1"))
        let request = HTTPRequest(method: "PUT", url: "https://books.example/v1/books/b-7", headers: headers, body: Array("x".utf8))
        #expect(!request.description.contains("tok-UNIT-1"))
        #expect(request.description.contains("Authorization: <redacted>"))
    }

    @Test func responseHeaderBlockParsing() {
        let block = Array("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nX-Long: a\r\n  b\r\ncontent-type: text/plain\r\n\r\n".utf8)
        let parsed = HTTPResponse.parseHeaderBlock(block)
        #expect(parsed.reason == "Service Unavailable")
        #expect(parsed.headers["retry-after"] == "5")
        #expect(parsed.headers["X-LONG"] == "a b")
        #expect(parsed.headers["Content-Type"] == "text/plain")
        #expect(HTTPResponse.parseHeaderBlock(Array("HTTP/2 200\r\n\r\n".utf8)).reason == "")
        // Values keep what is not optional white space, characters of any width included.
        let wide = HTTPResponse.parseHeaderBlock(Array("HTTP/1.1 200 OK\r\nX-Name: \t Émile ü \t\r\nX-Empty: \t \r\nX-Colon: a:b\r\n\r\n".utf8))
        #expect(wide.headers["x-name"] == "Émile ü")
        #expect(wide.headers["x-empty"] == "")
        #expect(wide.headers["x-colon"] == "a:b")
        #expect(" \té\t ".trimmingSpacesAndTabs() == "é" && "ü".trimmingSpacesAndTabs() == "ü" && " \t ".trimmingSpacesAndTabs() == "")
    }

    @Test func headerWithLineBreakIsRefusedWithoutEchoingIt() {
        let request = HTTPRequest(url: "http://127.0.0.1:1/", headers: ["Authorization": "Bearer tok-CRLF\r\nX-Evil: 1"])
        switch CurlEasyHandle.headerLines(for: request) {
        case .success: Issue.record("a header with CR LF was accepted")
        case .failure(let problem):
            #expect(problem.reason == "header Authorization contains a line break")
        }
        #expect(
            (try? CurlEasyHandle.headerLines(for: HTTPRequest(url: "http://h/", headers: ["X-Empty": ""])).get())
                == ["X-Empty;", "Expect:", "Content-Type:"])
    }

    @Test func transportFailureDescriptionHasNoHeaders() {
        let failure = TransportFailure(
            kind: .connectionRefused, endpoint: Self.endpoint,
            diagnostics: CurlDiagnostics(code: 7, osErrno: ECONNREFUSED, remoteAddress: "192.0.2.7", message: "Failed to connect"))
        #expect(failure.description == "connectionRefused (https://books.example) [curl 7, errno 111, 192.0.2.7: Failed to connect]")
    }
}
