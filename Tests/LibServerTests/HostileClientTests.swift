import Foundation
import LibJSON
import Testing
import TestSupport

/// What one misbehaving client must not be able to do to the others.
@Suite struct HostileClientTests {
    @Test func onePeerHolding1500IdleConnectionsDoesNotLockOthersOut() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        // The attacker connects from 127.0.0.2, everybody else from 127.0.0.1.
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<1500 {
            guard let fd = try Self.connect(from: "127.0.0.2", to: demo.server.port) else { break }
            held.append(fd)
        }
        #expect(held.count == 1500)
        let start = Date()
        let answer = try SignedInClient(client: try demo.client(), token: alice.token, userID: alice.userID).get("/v1/books/b-7")
        let elapsed = Date().timeIntervalSince(start)
        #expect(answer.status == 200)
        #expect(elapsed < 1, "answered after \(elapsed) s")
        // The attacker's connections past its share were refused at once.
        let last = try #require(held.last)
        let refusal = String(decoding: Self.readAll(last), as: UTF8.self)
        #expect(refusal.hasPrefix("HTTP/1.1 429 "), "\(refusal)")
        #expect(refusal.contains("Retry-After: 1"))
    }

    @Test func aPeerThatNeverSendsItsHeadersIsCutOff() throws {
        let demo = try DemoServer()
        let fd = try #require(try Self.connect(from: "127.0.0.3", to: demo.server.port))
        defer { close(fd) }
        _ = "GET /v1/me HTTP/1.1\r\nHost: x\r\n".withCString { send(fd, $0, strlen($0), 0) }
        let start = Date()
        let answer = String(decoding: Self.readAll(fd), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 408 "), "\(answer)")
        #expect(Date().timeIntervalSince(start) < 15)
    }

    @Test func fortyWrongPasswordsAreSlowedWith429AndTheRightOneWorksAfterwards() throws {
        let demo = try DemoServer()
        let client = try demo.client()
        var statuses: [Int] = []
        var retryAfter: Int?
        for _ in 0..<40 {
            let answer = try Self.login(client, "alice", "wrong")
            statuses.append(answer.status)
            if answer.status == 429 { retryAfter = answer.header("Retry-After").flatMap(Int.init) }
        }
        #expect(Array(statuses.prefix(5)) == [401, 401, 401, 401, 401])
        #expect(statuses.filter { $0 == 429 }.count >= 30, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 })
        let wait = try #require(retryAfter)
        #expect((1...60).contains(wait))
        let blocked = try Self.login(client, "alice", "alice-demo")
        #expect(blocked.status == 429, "while slowed, even the right password waits")
        let seconds = try #require(blocked.header("Retry-After").flatMap(Int.init))
        usleep(UInt32(seconds) * 1_000_000 + 200_000)
        #expect(try Self.login(client, "alice", "alice-demo").status == 201)
        #expect(try Self.login(client, "bob", "bob-demo").status == 201, "other users were never locked")
    }

    @Test func manyUsersGuessedFromOnePeerAreSlowedToo() throws {
        let demo = try DemoServer()
        let client = try demo.client()
        var statuses: [Int] = []
        for n in 0..<24 { statuses.append(try Self.login(client, "nobody\(n)", "guess").status) }
        #expect(Array(statuses.prefix(20)) == Array(repeating: 401, count: 20))
        #expect(statuses.last == 429)
    }

    @Test func hostIsRequiredAndSingleAndAnEncodedSlashIsNotASeparator() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        for head in ["GET /v1/books/b-7 HTTP/1.1\r\n", "GET /v1/books/b-7 HTTP/1.1\r\nHost: a\r\nHost: b\r\n"] {
            let client = try demo.client()
            try client.sendRaw(Array((head + "Authorization: Bearer \(alice.token)\r\n\r\n").utf8))
            let answer = try client.readResponse()
            #expect(answer.status == 400, "\(head)")
            #expect(answer.json?["detail"]?.stringValue?.contains("Host") == true)
        }
        let encoded = try alice.get("/v1/books/b-7%2Fhistory")
        #expect(encoded.status == 400)
        #expect(encoded.problemDetail.contains("%2F"))
        let fresh = SignedInClient(client: try demo.client(), token: alice.token, userID: alice.userID)
        #expect(try fresh.get("/v1/books/b-7/history").status == 200)
    }

    @Test func documentsArePrivateAndRevalidatedAndSessionsNeverStored() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        for answer in [try alice.get("/v1/books/b-7"), try alice.get("/v1/books/b-7", headers: [("If-None-Match", etag)]),
                       try alice.get("/v1/books"), try alice.get("/v1/books/b-7/history"), try alice.get("/v1/me")] {
            #expect(answer.header("Cache-Control") == "private, no-cache")
            #expect(answer.header("Vary") == "Authorization")
        }
        let session = try Self.login(try demo.client(), "alice", "alice-demo")
        #expect(session.status == 201)
        #expect(session.header("Cache-Control") == "no-store")
    }

    @Test func aLoginBodyThatIsNotAnObjectIs400() throws {
        let demo = try DemoServer()
        let answer = try demo.client().request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")], body: "[1]")
        #expect(answer.status == 400)
        #expect(answer.problemDetail == "The body must be {\"username\": STRING, \"password\": STRING}, not array")
    }

    static func login(_ client: HTTPTestClient, _ user: String, _ password: String) throws -> HTTPTestResponse {
        try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                           body: #"{"username":"\#(user)","password":"\#(password)"}"#)
    }

    /// A TCP connection to 127.0.0.1:port from the given loopback address.
    static func connect(from source: String, to port: Int) throws -> Int32? {
        // Close-on-exec: thousands of these must not leak into programs a test starts.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let ok = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0 && withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        if !ok { close(fd); return nil }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return bytes }
            bytes += buffer[0..<n]
        }
    }
}
