import LibHTTPServer
import Testing
import TestSupport

/// SplitMix64: a seeded generator, so that a failing case can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct FuzzTests {
    /// Mangled requests never crash or hang the server: each one is answered
    /// or closed once the client stops sending, and the server keeps serving.
    @Test func mangledRequestsAreAnsweredOrClosed() throws {
        let server = try TestServer()
        var random = SeededGenerator(state: 20_261_129)
        let valid = Array("PUT /v1/books/b-7?x=%41 HTTP/1.1\r\nHost: x\r\nIf-Match: \"e\"\r\nContent-Length: 5\r\n\r\nhello".utf8)
        for iteration in 0..<200 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                default: bytes.remove(at: index)
                }
            }
            let client = try server.client(timeout: 5)
            try client.sendRaw(bytes)
            client.shutdownWrite()
            let answer = try client.readUntilClosed()
            let text = String(decoding: answer, as: UTF8.self)
            #expect(answer.isEmpty || text.hasPrefix("HTTP/1.1 "), "iteration \(iteration): \(text)")
        }
        #expect(try server.client().request("GET", "/alive").text == "GET /alive\n")
    }
}
