import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct RobustnessTests {
    @Test func garbageAndTruncatedRequestsDoNotHurtTheServer() throws {
        let demo = try DemoServer()
        let garbage = try demo.client()
        try garbage.sendRaw((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7919) } + Array("\r\n\r\n".utf8))
        let answer = try garbage.readResponse()
        #expect(answer.status == 400)
        #expect(garbage.isClosedByPeer())

        let truncated = try demo.client()
        try truncated.sendRaw(Array("PUT /v1/books/b-7 HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"ti".utf8))
        truncated.close()

        let alice = try demo.signIn("alice")
        #expect(try alice.get("/v1/books/b-7").status == 200)
    }

    @Test func tenMegabyteBodyIs413() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024)
        let answer = try alice.client.request("PUT", "/v1/books/b-7",
            headers: [("Authorization", "Bearer \(alice.token)"), ("If-Match", "*"), ("Idempotency-Key", "big")], bodyBytes: huge)
        #expect(answer.status == 413)
        let after = try demo.signIn("alice")
        #expect(try demo.history("b-7", as: after).count == 1)
    }

    /// 200 keep-alive connections at once, each reading and writing its own
    /// book: every answer right, no write lost or doubled.
    @Test func twoHundredConcurrentKeepAliveConnections() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let token = alice.token
        let connections = 200, writesEach = 5
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: connections) { n in
            do {
                let session = SignedInClient(client: try demo.client(), token: token, userID: alice.userID)
                let id = "c-\(n)"
                var etag: String?
                for w in 0..<writesEach {
                    let body = #"{"title":"Book \#(n) version \#(w)","copies":\#(w)}"#
                    let answer = w == 0 ? try session.put(id, body, create: true) : try session.put(id, body, ifMatch: etag)
                    guard answer.status == (w == 0 ? 201 : 200) else { failures.add("\(id) write \(w): \(answer.status) \(answer.text)"); return }
                    etag = answer.header("ETag")
                    let read = try session.get("/v1/books/\(id)")
                    guard read.json?["copies"] == .integer(Int64(w)), read.header("ETag") == etag else {
                        failures.add("\(id) read after write \(w): \(read.status) \(read.text)"); return
                    }
                    guard try session.get("/v1/books/b-7").status == 200 else { failures.add("\(id) read b-7"); return }
                }
            } catch {
                failures.add("connection \(n): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        let count = try TestDatabase.query(demo.server.databasePath,
            "SELECT count(*), count(DISTINCT book_id || '/' || version) FROM history WHERE book_id LIKE 'c-%'")
        #expect(count == "\(connections * writesEach)|\(connections * writesEach)\n")
    }
}

final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
