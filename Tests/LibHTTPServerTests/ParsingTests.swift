@testable import LibHTTPServer
import Testing

@Suite struct ParsingTests {
    @Test func headersAreOrderedAndCaseInsensitive() {
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-A", "1")])
        headers.add("x-a", "2")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["x-A"] == "1")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        headers.set("X-A", "3")
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["Content-Type=text/plain", "X-A=3"])
        headers.set("New", "n")
        #expect(headers.map(\.name) == ["Content-Type", "X-A", "New"])
        headers.remove("content-type")
        #expect(headers["Content-Type"] == nil)
        #expect(headers["Missing"] == nil)
    }

    @Test func parsesAHead() throws {
        let bytes = Array("PUT /v1/books/b-7?x=1 HTTP/1.1\r\nHost: h\r\nIf-Match:  \"e1\" \r\nX-Empty:\r\n\r\n".utf8)
        let head = try RequestParser.parseHead(bytes[...]).get()
        #expect(head.method == "PUT")
        #expect(head.target == "/v1/books/b-7?x=1")
        #expect(head.version == "HTTP/1.1")
        #expect(head.headers.map { "\($0.name)=\($0.value)" } == ["Host=h", "If-Match=\"e1\"", "X-Empty="])
    }

    @Test func laterMinorVersionsAreServedAsHTTP11() throws {
        let head = try RequestParser.parseHead(Array("GET / HTTP/1.7\r\n\r\n".utf8)[...]).get()
        #expect(head.version == "HTTP/1.1")
    }

    @Test func findsTheEndOfTheHead() {
        let bytes = Array("GET / HTTP/1.1\r\nA: b\r\n\r\nrest".utf8)
        #expect(RequestParser.headEnd(in: bytes, start: 0, scanFrom: 0) == bytes.count - 4)
        #expect(RequestParser.headEnd(in: Array("GET / HTTP/1.1\r\n\r".utf8), start: 0, scanFrom: 0) == nil)
        #expect(RequestParser.headEnd(in: Array("\r\r\n\r\n".utf8), start: 0, scanFrom: 0) == 5)
    }

    @Test func methodsAreCaseSensitive() throws {
        let head = try RequestParser.parseHead(Array("get / HTTP/1.1\r\n\r\n".utf8)[...]).get()
        #expect(head.method == "get")
    }

    @Test func contentLengthRules() throws {
        func length(_ fields: [(String, String)], max: Int = 100) -> Result<Int, RequestFailure> {
            RequestParser.bodyLength(
                of: RequestHead(method: "PUT", target: "/", version: "HTTP/1.1", headers: HTTPHeaders(fields)),
                maxBodyBytes: max)
        }
        #expect(try length([]).get() == 0)
        #expect(try length([("content-length", "007")]).get() == 7)
        #expect(try length([("Content-Length", "100")]).get() == 100)
        #expect(length([("Content-Length", "101")]).failureStatus == 413)
        #expect(length([("Content-Length", "1"), ("Content-Length", "1")]).failureStatus == 400)
        #expect(length([("Content-Length", "")]).failureStatus == 400)
        #expect(length([("Content-Length", "+1")]).failureStatus == 400)
        #expect(length([("Transfer-Encoding", "gzip"), ("Content-Length", "1")]).failureStatus == 501)
    }

    @Test func targetsAreDecoded() throws {
        let decoded = try RequestTarget.decode("/a%2Db/c%20d?k=v%3D1&k=second&plus=a+b&empty=&novalue").get()
        #expect(decoded.path == "/a-b/c d")
        #expect(decoded.query == ["k": "v=1", "plus": "a+b", "empty": "", "novalue": ""])
        #expect(try RequestTarget.decode("/").get().query.isEmpty)
        #expect(try RequestTarget.decode("/x?").get().path == "/x")
        #expect(throws: RequestFailure.self) { try RequestTarget.decode("/%4").get() }
        #expect(throws: RequestFailure.self) { try RequestTarget.decode("/%ff").get() }
        // An encoded slash would split a segment in two once decoded.
        #expect(throws: RequestFailure.self) { try RequestTarget.decode("/v1/books/b-7%2Fhistory").get() }
        #expect(throws: RequestFailure.self) { try RequestTarget.decode("/a%2fb").get() }
        #expect(try RequestTarget.decode("/x?path=a%2Fb").get().query == ["path": "a/b"], "the query may hold slashes")
    }

    @Test func problemBodiesEscapeJSON() {
        let body = String(decoding: ProblemBody.json(status: 400, detail: "a \"q\" \\ \n\t\u{1} é"), as: UTF8.self)
        #expect(body == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a \"q\" \\ \n\t\u0001 é"}"#)
    }

    @Test func responsesAreSerialized() {
        var headers = HTTPHeaders([("X-A", "1\r\nInjected: yes"), ("Content-Length", "999"), ("Date", "fixed")])
        headers.add("Bad Name", "dropped")
        let bytes = ResponseSerializer.serialize(
            HTTPResponse(status: 201, headers: headers, body: Array("hi".utf8)), headOnly: false, connection: "close")
        #expect(String(decoding: bytes, as: UTF8.self)
            == "HTTP/1.1 201 Created\r\nX-A: 1 Injected: yes\r\nDate: fixed\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
        let noContent = ResponseSerializer.serialize(
            HTTPResponse(status: 204, headers: ["Date": "d"], body: Array("ignored".utf8)), headOnly: false, connection: nil)
        #expect(String(decoding: noContent, as: UTF8.self) == "HTTP/1.1 204 No Content\r\nDate: d\r\n\r\n")
    }

    @Test func datesAreIMFFixdate() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}

extension Result where Failure == RequestFailure {
    var failureStatus: Int? {
        if case .failure(let failure) = self { return failure.status }
        return nil
    }
}
