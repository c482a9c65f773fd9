import Foundation
import LibHTTPServer
import Testing
import TestSupport

@Suite struct KeepAliveTests {
    @Test func severalRequestsReuseOneConnection() throws {
        let server = try TestServer()
        let client = try server.client()
        var remotes: Set<String> = []
        for index in 0..<5 {
            let response = try client.request("POST", "/items/\(index)", body: "body \(index)")
            #expect(response.status == 200)
            #expect(response.text == "POST /items/\(index)\nbody \(index)")
            #expect(response.header("Connection") == nil)
            #expect(response.header("Content-Length") == "\(response.body.count)")
            #expect(response.header("Date")?.hasSuffix(" GMT") == true)
            remotes.insert(try #require(response.header("X-Remote")))
        }
        // One peer address (and so one TCP connection) for all five.
        #expect(remotes.count == 1)
        #expect(remotes.first?.hasPrefix("127.0.0.1:") == true)
        #expect(!client.isClosedByPeer(timeout: 0.2))
    }

    @Test func connectionCloseIsHonoured() throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try client.request("GET", "/bye", headers: [("Connection", "close")])
        #expect(response.status == 200)
        #expect(response.text == "GET /bye\n")
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByPeer())
    }

    @Test func handlerCanAskToClose() throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try client.request("GET", "/connection-close")
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByPeer())
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        let client = try server.client()
        let requests = "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            + "\r\nGET /three?a=1 HTTP/1.1\r\nHost: x\r\n\r\n"
        try client.sendRaw(requests.bytes)
        #expect(try client.readResponse().text == "GET /one\n")
        #expect(try client.readResponse().text == "POST /two\nhello")
        #expect(try client.readResponse().text == "GET /three?a=1\n")
        #expect(!client.isClosedByPeer(timeout: 0.2))
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let server = try TestServer()
        let closing = try server.client()
        try closing.sendRaw("GET /old HTTP/1.0\r\n\r\n".bytes)
        let first = try closing.readResponse()
        #expect(first.status == 200)
        #expect(first.text == "GET /old\n")
        #expect(first.header("Connection") == "close")
        #expect(closing.isClosedByPeer())

        let keeping = try server.client()
        for _ in 0..<2 {
            try keeping.sendRaw("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".bytes)
            let response = try keeping.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == "keep-alive")
        }
        #expect(!keeping.isClosedByPeer(timeout: 0.2))
    }

    @Test func postWithoutContentLengthHasAnEmptyBody() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("POST /empty HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "POST /empty\n")
    }

    @Test func queryAndPathArePercentDecoded() throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try client.request("GET", "/v1/b%C3%BCcher%20x?after=b-3&limit=2&q=a+b%2Bc&amp=%26%3D&flag&after=ignored")
        #expect(response.status == 200)
        #expect(response.text == "GET /v1/bücher x?after=b-3&amp=&=&flag=&limit=2&q=a+b+c\n")
    }

    @Test func headAndNoContentAnswersCarryNoBody() throws {
        let server = try TestServer()
        let client = try server.client()
        let head = try client.request("HEAD", "/thing")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "\("HEAD /thing\n".utf8.count)")
        #expect(head.body.isEmpty)
        let noContent = try client.request("DELETE", "/status/204")
        #expect(noContent.status == 204)
        #expect(noContent.header("Content-Length") == nil)
        #expect(noContent.body.isEmpty)
        let notModified = try client.request("GET", "/status/304")
        #expect(notModified.status == 304)
        #expect(notModified.header("Content-Length") == nil)
        // Had a body been sent for any of these, this answer would be misread.
        let after = try client.request("GET", "/after")
        #expect(after.text == "GET /after\n")
    }

    @Test func expectContinueGetsAnInterimAnswer() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw("PUT /big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n".bytes)
        // The interim answer comes before the body is sent.
        let interim = String(decoding: client.readAvailable(timeout: 2), as: UTF8.self)
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
        try client.sendRaw("data".bytes)
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "PUT /big\ndata")
    }

    @Test func idleConnectionIsClosedAfterTheTimeout() throws {
        var limits = HTTPServerLimits()
        limits.idleTimeout = 0.3
        let server = try TestServer(limits: limits)
        let client = try server.client()
        #expect(try client.request("GET", "/").status == 200)
        let start = Date()
        #expect(client.isClosedByPeer(timeout: 3))
        #expect(Date().timeIntervalSince(start) < 2)
    }
}
