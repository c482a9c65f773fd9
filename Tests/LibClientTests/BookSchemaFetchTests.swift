import LibBase
import LibClient
import LibHTTP
import LibNet
import Testing

/// A served book schema is stored and read at every check of a book: one
/// larger or deeper than any real one is not taken (issue 39).
@Suite struct BookSchemaFetchTests {
    struct Canned: HTTPTransport {
        let body: String
        func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "application/schema+json", "ETag": "\"s1\""], body: Array(body.utf8))
        }
    }

    func fetched(_ schema: String) -> BookSchemaFetch.Answer? {
        let api = ServerAPI(transport: Canned(body: schema), origin: ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080),
                            token: "t")
        return try? BookSchemaFetch.conditional(api, etag: nil)
    }

    @Test func aSchemaOfOrdinarySizeIsTaken() {
        let schema = #"{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}"#
        #expect(fetched(schema) == .schema(text: schema, etag: "\"s1\""))
    }

    @Test func aSchemaOverTheSizeLimitIsNotTaken() {
        let values = (0..<10_000).map { "\"value \($0)\"" }.joined(separator: ",")
        let schema = #"{"type":"object","properties":{"title":{"enum":[\#(values)]}}}"#
        #expect(schema.utf8.count > BookSchemaFetch.maxBytes)
        #expect(fetched(schema) == nil)
    }

    @Test func aSchemaNestedDeeperThanTheLimitIsNotTaken() {
        let deep = String(repeating: #"{"allOf":["#, count: 40) + #"{"type":"object"}"# + String(repeating: "]}", count: 40)
        #expect(fetched(deep) == nil)
    }
}
