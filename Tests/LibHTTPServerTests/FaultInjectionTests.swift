import LibHTTPServer
import Testing
import TestSupport

@Suite struct FaultInjectionTests {
    @Test func closeWithoutAnswerSendsNothing() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.request("GET", "/before").status == 200)
        try client.sendRaw("GET /close-without-answer HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        #expect(try client.readUntilClosed() == [])
    }

    @Test func truncateSendsExactlyThatManyBytes() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("GET /truncate/17 HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        #expect(String(decoding: try client.readUntilClosed(), as: UTF8.self) == "HTTP/1.1 200 OK\r\n")

        let zero = try server.client()
        try zero.sendRaw("GET /truncate/0 HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        #expect(try zero.readUntilClosed() == [])
    }

    @Test func truncateBeyondTheEndSendsTheWholeAnswerThenCloses() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("GET /truncate/100000 HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        let text = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("\r\nContent-Length: 10\r\n"))
        #expect(text.hasSuffix("\r\n\r\n0123456789"))
    }

    @Test func truncatedAnswerIsSeenAsALostConnection() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(throws: HTTPTestClientError.self) {
            _ = try client.request("GET", "/truncate/40")
        }
    }
}
