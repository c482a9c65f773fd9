import Foundation
import LibHTTPServer
import Testing
import TestSupport

/// Collects failures from many threads.
private final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    private var successes = 0
    func fail(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }
    func succeed() { lock.lock(); successes += 1; lock.unlock() }
    var snapshot: (failures: [String], successes: Int) { lock.lock(); defer { lock.unlock() }; return (messages, successes) }
}

@Suite struct ConcurrencyTests {
    @Test func twoHundredKeepAliveClientsTwentyRequestsEach() throws {
        var limits = HTTPServerLimits()
        limits.maxConnectionsPerPeer = 1000  // all 200 come from 127.0.0.1
        let server = try TestServer(limits: limits)
        let clientCount = 200, requestsEach = 20
        // All connections are open at once before any request is sent.
        let clients = try (0..<clientCount).map { _ in try server.client(timeout: 20) }
        let log = FailureLog()
        let group = DispatchGroup()
        for (index, client) in clients.enumerated() {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var remote: String?
                for request in 0..<requestsEach {
                    do {
                        let response = try client.request("POST", "/c/\(index)?r=\(request)", body: "\(index)-\(request)")
                        let expected = "POST /c/\(index)?r=\(request)\n\(index)-\(request)"
                        guard response.status == 200, response.text == expected else {
                            log.fail("client \(index) request \(request): \(response.status) \(response.text)")
                            return
                        }
                        if remote == nil { remote = response.header("X-Remote") }
                        guard response.header("X-Remote") == remote else {
                            log.fail("client \(index) changed connection")
                            return
                        }
                        log.succeed()
                    } catch {
                        log.fail("client \(index) request \(request): \(error)")
                        return
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 25) == .success)
        let result = log.snapshot
        #expect(result.failures.isEmpty, "\(result.failures.prefix(5))")
        #expect(result.successes == clientCount * requestsEach)
    }

    @Test func connectionsFromOnePeerBeyondItsShareGet429() throws {
        var limits = HTTPServerLimits()
        limits.maxConnectionsPerPeer = 2
        let server = try TestServer(limits: limits)
        let first = try HTTPTestClient(host: "127.0.0.1", port: server.port)
        let second = try HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect(try first.request("GET", "/a").status == 200)
        #expect(try second.request("GET", "/b").status == 200)
        let third = try HTTPTestClient(host: "127.0.0.1", port: server.port)
        let refused = try third.readResponse()
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "1")
        first.close()
        usleep(200_000)
        #expect(try HTTPTestClient(host: "127.0.0.1", port: server.port).request("GET", "/c").status == 200,
                "a closed connection gives its place back")
    }

    @Test func connectionsBeyondTheLimitGet503() throws {
        var limits = HTTPServerLimits()
        limits.maxConnections = 2
        // Both connections in the middle of a request: none can be cut off to make room.
        let release = DispatchSemaphore(value: 0)
        let server = try TestServer(limits: limits) { request in
            if request.path.hasPrefix("/hold") { release.wait() }
            return TestServer.echo(request)
        }
        let first = try server.client(), second = try server.client()
        try first.sendRaw(Array("GET /hold-1 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        try second.sendRaw(Array("GET /hold-2 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        usleep(200_000)

        let third = try server.client()
        let refused = try third.request("GET", "/3")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.header("Connection") == "close")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.text.hasPrefix(#"{"type":"about:blank","title":"Service Unavailable","status":503,"#))
        #expect(third.isClosedByPeer())
        release.signal()
        release.signal()
        #expect(try first.readResponse().status == 200)
        #expect(try second.readResponse().status == 200)

        // A slot frees up when a client leaves.
        first.close()
        var status = 0
        let deadline = Date().addingTimeInterval(3)
        while status != 200 && Date() < deadline {
            status = (try? server.client().request("GET", "/4").status) ?? 0
            if status != 200 { usleep(20_000) }
        }
        #expect(status == 200)
    }

    /// Eight connections that never finish a request fill a server of four
    /// event loops; whichever loop accepts an ordinary client, the one cut
    /// off to make room is a staller, wherever it sits (a loop with none of
    /// its own hands the client to another), never a client that just
    /// connected, and nobody is told 503.
    @Test func aFullServerCutsOffAStallerOnAnyLoop() throws {
        var limits = HTTPServerLimits()
        limits.maxConnections = 8
        limits.eventLoops = 4
        let server = try TestServer(limits: limits)
        var stallers: [HTTPTestClient] = []
        for _ in 0..<8 {
            let staller = try server.client()
            try staller.sendRaw(Array("GET /never-finished HTTP/1.1\r\nHost: x\r\n".utf8))
            stallers.append(staller)
        }
        usleep(200_000)
        // The clients stay connected: each needs a place someone is cut off for
        // (the stallers first, having waited longest; then idle clients).
        var clients: [HTTPTestClient] = []
        var statuses: [Int] = []
        for index in 0..<20 {
            let client = try server.client()
            statuses.append(try client.request("GET", "/ordinary-\(index)").status)
            clients.append(client)
        }
        #expect(statuses == Array(repeating: 200, count: 20), "\(statuses)")
        #expect(stallers.filter { $0.isClosedByPeer() }.count == 8, "every staller was cut off once the clients came")
    }

    @Test func handlerRunsConcurrently() throws {
        // Twenty requests that each sleep 300 ms take 6 s one after another.
        let server = try TestServer()
        let group = DispatchGroup()
        let log = FailureLog()
        let start = Date()
        for _ in 0..<20 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let response = try server.client().request("GET", "/sleep/300")
                    if response.status == 200 { log.succeed() } else { log.fail("\(response.status)") }
                } catch { log.fail("\(error)") }
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(log.snapshot.successes == 20)
        #expect(Date().timeIntervalSince(start) < 3)
    }
}
