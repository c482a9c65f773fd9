import Foundation
import LibJSON
import Testing
import TestSupport

/// Waiting change-feed requests (`wait=S`) never lock anyone out (issue
/// 47: 1,024 of them from 20 addresses made every other request 503): they
/// are capped per user (64), per peer (half of --max-connections-per-peer)
/// and in all (half of --max-connections); over a cap the longest waiter
/// is answered early with an empty page, and a waiter whose client closed
/// lets go of its place at once. The server's counts come from
/// `GET /_test/waiters` (--fault-control).
@Suite struct WaitingCrowdTests {
    @Test func aThousandWaitersFromTwentyAddressesLeaveRoomForOrdinaryReadsAndWrites() throws {
        let demo = try DemoServer(extraArguments: ["--fault-control"])
        // 16 users of at most 63 waiters each: no user is over its own cap.
        let users = (1...16).map { String(format: "reader-%02d", $0) }
        for name in users {
            let added = try CommandRunner.run(BuiltProducts.path("lib-server"), ["user", "add", name, "--role", "reader", "--db", demo.server.databasePath],
                                              stdin: "\(name)-secret\n")
            try #require(added.status == 0, "\(added)")
        }
        let tokens = try users.map { try Self.token(demo, $0, "\($0)-secret") }
        let alice = try demo.signIn("alice")
        let now = try #require(try alice.get("/v1/changes").json?["next"]?.stringValue)

        // 1,000 from 127.0.2.1 … 127.0.2.20, 50 each (under the per-peer connection
        // cap of 64); the server's 1,024 places also hold alice's idle connection
        // and the test's own, which another loop may not yet have seen idle.
        var crowd: [Int32] = []
        defer { crowd.forEach { close($0) } }
        for index in 0..<1_000 {
            let fd = try #require(try HostileClientTests.connect(from: "127.0.2.\(index % 20 + 1)", to: demo.server.port))
            try Self.send(Self.waitingRequest(token: tokens[index % 16], since: now), on: fd)
            crowd.append(fd)
        }
        let settled = try Self.counts(of: demo) { $0.waiting + $0.answeredEarly == 1_000 }
        #expect(settled.waiting == 512, "half of --max-connections 1024 wait")
        #expect(settled.answeredEarly == 488)

        // The server is full of the crowd's connections; ordinary requests still get in.
        var statuses: [Int] = []
        for _ in 0..<33 {
            let reader = SignedInClient(client: try demo.client(), token: alice.token, userID: alice.userID)
            statuses.append((try? reader.get("/v1/books/b-7"))?.status ?? -1)
        }
        let writer = SignedInClient(client: try demo.client(), token: alice.token, userID: alice.userID)
        let etag = (try? writer.get("/v1/books/b-7"))?.header("ETag")
        let written = (try? writer.put("b-7", #"{"title":"Dune, under a crowd"}"#, ifMatch: etag))?.status ?? -1
        #expect(statuses == Array(repeating: 200, count: 33), "\(statuses)")
        #expect(etag != nil && written == 200, "\(written)")

        // The write woke those still waiting; those answered early had got an
        // ordinary empty page with their cursor.
        let woken = try Self.counts(of: demo) { $0.waiting == 0 }
        #expect(woken == Counts(waiting: 0, answeredEarly: 488, clientsGone: 0))
        var pages: [String: Int] = [:]
        for fd in crowd {
            let answer = Self.readAnswer(fd)
            let ids = answer?.json?["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            let next = answer?.json?["next"]?.stringValue
            let kind = answer?.status != 200 ? "status \(answer?.status ?? -1)" : ids.isEmpty && next == now ? "empty" : ids == ["b-7"] ? "b-7" : "other"
            pages[kind, default: 0] += 1
        }
        #expect(pages == ["empty": 488, "b-7": 512])
        print("1,000 waiting feed requests from 20 addresses: \(settled.answeredEarly) answered early (an empty page), \(settled.waiting) waited; ordinary reads 200: \(statuses.filter { $0 == 200 }.count)/33, the librarian's write \(written)")
    }

    /// A peer's waiters past half its connection cap (64 / 2) displace its
    /// own longest one; a waiter whose client closed is let go at once, so
    /// the next one displaces nobody.
    @Test func aWaiterWhoseClientClosedLetsGoOfItsPlaceAtOnce() throws {
        let demo = try DemoServer(extraArguments: ["--fault-control"])
        let alice = try demo.signIn("alice")
        let now = try #require(try alice.get("/v1/changes").json?["next"]?.stringValue)
        var waiters: [Int32] = []
        defer { waiters.forEach { close($0) } }
        // One at a time, each seen waiting before the next is sent: on
        // PostgreSQL a request is signed in off the event loop, so requests
        // sent together may begin to wait in any order.
        func addWaiter() throws {
            let fd = try #require(try HostileClientTests.connect(from: "127.0.3.1", to: demo.server.port))
            let before = try Self.counts(of: demo) { _ in true }
            try Self.send(Self.waitingRequest(token: alice.token, since: now), on: fd)
            waiters.append(fd)
            _ = try Self.counts(of: demo) { $0.waiting + $0.answeredEarly > before.waiting + before.answeredEarly }
        }
        for _ in 0..<32 { try addWaiter() }
        #expect(try Self.counts(of: demo) { $0.waiting == 32 } == Counts(waiting: 32, answeredEarly: 0, clientsGone: 0))

        close(waiters.remove(at: 5))
        #expect(try Self.counts(of: demo) { $0.clientsGone == 1 } == Counts(waiting: 31, answeredEarly: 0, clientsGone: 1))
        try addWaiter()
        #expect(try Self.counts(of: demo) { $0.waiting == 32 } == Counts(waiting: 32, answeredEarly: 0, clientsGone: 1),
                "the closed one's place was free")

        // Full again: the next displaces the longest-waiting one, which reads an empty page.
        try addWaiter()
        #expect(try Self.counts(of: demo) { $0.answeredEarly == 1 } == Counts(waiting: 32, answeredEarly: 1, clientsGone: 1))
        let answer = try #require(Self.readAnswer(waiters[0]))
        #expect(answer.status == 200)
        #expect(answer.json?["items"]?.arrayValue?.count == 0 && answer.json?["next"]?.stringValue == now)
        #expect(answer.json?["more"]?.boolValue == false)
    }

    struct Counts: Equatable {
        var waiting = 0, answeredEarly = 0, clientsGone = 0
    }

    /// The server's counts once `done` holds (given up after a minute, and
    /// returned as they are then: the caller's expectation fails on them).
    static func counts(of demo: DemoServer, until done: (Counts) -> Bool) throws -> Counts {
        var counts = Counts()
        for _ in 0..<3_000 {
            // A connection of its own each time: an idle one may be the one a full server cuts off.
            let json = try #require(try demo.client().request("GET", "/_test/waiters").json)
            let number = { (name: String) in Int(json[name]?.integerValue ?? -1) }
            counts = Counts(waiting: number("waiting"), answeredEarly: number("answered_early"), clientsGone: number("clients_gone"))
            if done(counts) { return counts }
            usleep(20_000)
        }
        return counts
    }

    static func waitingRequest(token: String, since: String) -> String {
        "GET /v1/changes?since=\(since)&wait=60 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
    }

    static func send(_ text: String, on fd: Int32) throws {
        let sent = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        try #require(sent == text.utf8.count)
    }

    static func token(_ demo: DemoServer, _ user: String, _ password: String) throws -> String {
        let answer = try HostileClientTests.login(try demo.client(), user, password)
        return try #require(answer.json?["token"]?.stringValue, "\(user): \(answer.status) \(answer.text)")
    }

    /// One answer read off a kept-alive connection (its head, then
    /// Content-Length bytes of body); nil when the connection ends first.
    static func readAnswer(_ fd: Int32) -> HTTPTestResponse? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                let head = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
                let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? -1
                let headers = head.dropFirst().compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                if bytes.count - end >= length { return HTTPTestResponse(status: status, headers: headers, body: Array(bytes[end..<end + length])) }
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            bytes += buffer[0..<n]
        }
    }
}
