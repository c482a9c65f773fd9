import Foundation
import LibHTTPServer
import Testing
import TestSupport

@Suite struct MalformedRequestTests {
    /// Asserts a problem answer with `status`, `Connection: close`, then the close.
    private func expectProblem(_ response: HTTPTestResponse, status: Int, title: String, client: HTTPTestClient) {
        #expect(response.status == status)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.header("Connection") == "close")
        #expect(response.text.hasPrefix(#"{"type":"about:blank","title":"\#(title)","status":\#(status),"detail":""#))
        #expect(client.isClosedByPeer())
    }

    @Test func garbageGets400AndTheServerStillServesOthers() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw([0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03])  // a TLS ClientHello
        let response = try client.readResponse()
        expectProblem(response, status: 400, title: "Bad Request", client: client)
        #expect(response.text.contains("control or non-ASCII byte"))

        let other = try server.client()
        #expect(try other.request("GET", "/still-here").text == "GET /still-here\n")
    }

    static let malformed: [(String, String)] = [
        ("GET / HTTP/1.1\r\nHost x\r\n\r\n", "no colon"),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "header name"),
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", "header name"),
        ("GET /caf\u{E9} HTTP/1.1\r\n\r\n", "non-ASCII"),
        ("GET http://example.com/ HTTP/1.1\r\n\r\n", "must start with /"),
        ("GET * HTTP/1.1\r\n\r\n", "must start with /"),
        ("GET / HTTP/1.1 extra\r\n\r\n", "more than three parts"),
        ("GET /  HTTP/1.1\r\n\r\n", "more than three parts"),
        ("GET / FTP/1.1\r\n\r\n", "HTTP/1.x"),
        ("GET\r\n\r\n", "METHOD SP TARGET"),
        ("GE(T / HTTP/1.1\r\n\r\n", "token"),
        ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "bare CR"),
        ("GET / HTTP/1.1\r\n folded: x\r\n\r\n", "folding"),
        ("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", "control character"),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", "more than once"),
        ("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\nabc", "not a non-negative integer"),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "not a non-negative integer"),
        ("POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n", "not a non-negative integer"),
        ("GET /%zz HTTP/1.1\r\n\r\n", "percent-escape"),
        ("GET /a%00b HTTP/1.1\r\n\r\n", "percent-escape"),
        ("GET /?q=%C3 HTTP/1.1\r\n\r\n", "percent-escape"),
    ]

    @Test(arguments: malformed)
    func malformedRequestsGet400AndClose(request: String, detail: String) throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw(request.bytes)
        let response = try client.readResponse()
        expectProblem(response, status: 400, title: "Bad Request", client: client)
        #expect(response.text.contains(detail), "\(response.text)")
    }

    @Test func unsupportedVersionGets505() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("GET / HTTP/2.0\r\n\r\n".bytes)
        expectProblem(try client.readResponse(), status: 505, title: "HTTP Version Not Supported", client: client)
    }

    @Test func truncatedRequestThenEndOfFileGets400() throws {
        let server = try TestServer()
        let head = try server.client()
        try head.sendRaw("GET /partial HTTP/1.1\r\nHost: x\r\n".bytes)
        head.shutdownWrite()
        let response = try head.readResponse()
        expectProblem(response, status: 400, title: "Bad Request", client: head)
        #expect(response.text.contains("closed before the request head was complete"))

        let body = try server.client()
        try body.sendRaw("PUT /partial HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".bytes)
        body.shutdownWrite()
        let bodyResponse = try body.readResponse()
        expectProblem(bodyResponse, status: 400, title: "Bad Request", client: body)
        #expect(bodyResponse.text.contains("after 3 of 10 body bytes"))

        // Gone entirely: nobody to answer, and nothing breaks.
        let gone = try server.client()
        try gone.sendRaw("GET /partial HT".bytes)
        gone.close()
        #expect(try server.client().request("GET", "/next").text == "GET /next\n")
    }

    @Test func partialRequestTimesOutWith408() throws {
        var limits = HTTPServerLimits()
        limits.idleTimeout = 0.3
        let server = try TestServer(limits: limits)
        let client = try server.client()
        try client.sendRaw("GET /slow HTTP/1.1\r\nHost:".bytes)
        let start = Date()
        expectProblem(try client.readResponse(), status: 408, title: "Request Timeout", client: client)
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func oversizedHeadGets431() throws {
        var limits = HTTPServerLimits()
        limits.maxHeaderBytes = 1024
        let server = try TestServer(limits: limits)
        let client = try server.client()
        let request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n"
        try client.sendRaw(request.bytes)
        expectProblem(try client.readResponse(), status: 431, title: "Request Header Fields Too Large", client: client)

        // The default limit is 16 KiB: a head just under it passes, one over it fails.
        let defaults = try TestServer()
        let fits = try defaults.client()
        let under = try fits.request("GET", "/", headers: [("X-Big", String(repeating: "b", count: 15 * 1024))])
        #expect(under.status == 200)
        let over = try defaults.client()
        try over.sendRaw("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "c", count: 17 * 1024))\r\n\r\n".bytes)
        expectProblem(try over.readResponse(), status: 431, title: "Request Header Fields Too Large", client: over)
    }

    @Test func hugeContentLengthGets413WithoutReadingTheBody() throws {
        let server = try TestServer()
        let client = try server.client(timeout: 3)
        // Only the head is sent: the answer must come without waiting for 10 MB.
        try client.sendRaw("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: 10485760\r\n\r\n".bytes)
        let response = try client.readResponse()
        expectProblem(response, status: 413, title: "Content Too Large", client: client)
        #expect(response.text.contains("10485760"))

        let fits = try server.client()
        let body = [UInt8](repeating: UInt8(ascii: "z"), count: 1024 * 1024 - 20)
        let accepted = try fits.request("PUT", "/fits", bodyBytes: body)
        #expect(accepted.status == 200)
        #expect(accepted.body.count == "PUT /fits\n".utf8.count + body.count)
    }

    @Test func overflowingContentLengthGets413() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("PUT / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n".bytes)
        expectProblem(try client.readResponse(), status: 413, title: "Content Too Large", client: client)
    }

    @Test func transferEncodingGets501() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".bytes)
        let response = try client.readResponse()
        expectProblem(response, status: 501, title: "Not Implemented", client: client)
        #expect(response.text.contains("Transfer-Encoding"))
    }
}
