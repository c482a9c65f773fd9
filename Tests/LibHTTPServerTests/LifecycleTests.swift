import Foundation
import LibHTTPServer
import Testing
import TestSupport

@Suite struct LifecycleTests {
    @Test(arguments: ["[::1]", "::1"])
    func bindsIPv6Loopback(host: String) throws {
        let server = try TestServer(host: host)
        let client = try HTTPTestClient(host: "::1", port: server.port)
        let response = try client.request("GET", "/six")
        #expect(response.status == 200)
        #expect(response.text == "GET /six\n")
        #expect(response.header("X-Remote")?.hasPrefix("[::1]:") == true)
    }

    @Test func bindsLocalhostAsIPv4Loopback() throws {
        let server = try TestServer(host: "localhost")
        let client = try HTTPTestClient(host: "127.0.0.1", port: server.port)
        #expect(try client.request("GET", "/").status == 200)
        #expect(server.server.port == server.port)
    }

    /// The server closes first, so its side of the connection sits in
    /// TIME_WAIT; SO_REUSEADDR lets a restart bind the port at once anyway.
    @Test func aRestartOnTheSamePortBindsAtOnce() throws {
        let first = try TestServer()
        let port = first.port
        let client = try first.client()
        #expect(try client.request("GET", "/connection-close").status == 200)
        #expect(first.stop())
        let again = HTTPServer { _ in .closeWithoutAnswer }
        #expect(try again.bind(host: "127.0.0.1", port: port) == port)
        again.stop(grace: 0)
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheHeaderTimeout() throws {
        var limits = HTTPServerLimits()
        limits.headerTimeout = 0.5
        let server = try TestServer(limits: limits)
        let client = try server.client()
        let start = Date()
        #expect(try client.readUntilClosed().isEmpty)
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.4 && elapsed < 5, "closed after \(elapsed) s")
    }

    @Test func bindingAPortInUseNamesTheAddressAndTheError() throws {
        let server = try TestServer()
        let second = HTTPServer { _ in .closeWithoutAnswer }
        do {
            _ = try second.bind(host: "127.0.0.1", port: server.port)
            Issue.record("bind succeeded on a port in use")
        } catch {
            #expect(error == .systemCallFailed(
                address: "127.0.0.1:\(server.port)", operation: "bind", errno: EADDRINUSE,
                reason: "Address already in use"))
            #expect(error.description == "cannot listen on 127.0.0.1:\(server.port): bind failed: Address already in use (errno \(EADDRINUSE))")
        }
    }

    @Test(arguments: [("example.com", 80), ("127.0.0.1", 70000), ("", 80), ("[::1", 80)])
    func rejectsAddressesThatAreNotLiterals(host: String, port: Int) throws {
        let server = HTTPServer { _ in .closeWithoutAnswer }
        #expect {
            _ = try server.bind(host: host, port: port)
        } throws: { error in
            guard case .invalidAddress = error as? HTTPServerError else { return false }
            return true
        }
    }

    @Test func bindingTwiceFails() throws {
        let server = HTTPServer { _ in .closeWithoutAnswer }
        let port = try server.bind(host: "127.0.0.1", port: 0)
        #expect(throws: HTTPServerError.alreadyBound(address: "127.0.0.1:\(port)")) {
            _ = try server.bind(host: "127.0.0.1", port: 0)
        }
        server.stop(grace: 0)
        #expect(throws: HTTPServerError.stopped) { _ = try server.bind(host: "127.0.0.1", port: 0) }
    }

    @Test func stopFinishesInFlightRequestsClosesIdleOnesAndRefusesNewOnes() throws {
        let server = try TestServer()
        let idle = try server.client()
        #expect(try idle.request("GET", "/idle").status == 200)

        let busy = try server.client()
        try busy.sendRaw("GET /sleep/400 HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        usleep(100_000)
        let start = Date()
        #expect(server.stop(grace: 3))
        let elapsed = Date().timeIntervalSince(start)

        let answer = try busy.readResponse()
        #expect(answer.status == 200)
        #expect(answer.text == "GET /sleep/400\n")
        #expect(answer.header("Connection") == "close")
        #expect(busy.isClosedByPeer())
        #expect(idle.isClosedByPeer())
        #expect(elapsed > 0.2 && elapsed < 2)
        #expect(throws: HTTPTestClientError.self) { _ = try server.client() }
    }

    @Test func stopCutsOffRequestsThatOutlastTheGracePeriod() throws {
        let server = try TestServer()
        let busy = try server.client()
        try busy.sendRaw("GET /sleep/2500 HTTP/1.1\r\nHost: x\r\n\r\n".bytes)
        usleep(100_000)
        let start = Date()
        #expect(server.stop(grace: 0.2))
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(busy.isClosedByPeer())
    }

    @Test func stopBeforeRunMakesRunReturnAtOnce() throws {
        let server = HTTPServer { _ in .closeWithoutAnswer }
        let port = try server.bind(host: "127.0.0.1", port: 0)
        server.stop()
        server.run()
        #expect(throws: HTTPTestClientError.self) { _ = try HTTPTestClient(port: port) }
    }

    @Test func stopIsSafeToCallTwiceFromTwoThreads() throws {
        let server = try TestServer()
        let other = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.server.stop()
            other.signal()
        }
        #expect(server.stop())
        #expect(other.wait(timeout: .now() + 5) == .success)
    }
}
