import Foundation
import Testing
import TestSupport

@testable import LibNet
import LibBase

/// The curl transport in process, against scripted loopback peers.
@Suite struct CurlTransportTests {
    @Test func oneConnectionServesManyRequests() throws {
        let peer = try ScriptedPeer { number, _ in .send(httpResponse(200, "OK", body: "n\(number)")) }
        let transport = CurlTransport(configuration: TransportConfiguration())
        for number in 1...5 {
            let response = try transport.send(HTTPRequest(url: peer.url("/v1/books/b-\(number)")))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "n\(number)")
        }
        #expect(peer.acceptedConnections == 1)
    }

    @Test func methodHeadersAndBodyAreSentAsGiven() throws {
        let peer = try ScriptedPeer { _, _ in
            .send(httpResponse(201, "Created", headers: ["ETAG: \"v2\"", "X-Thing: a"], body: "{\"id\":\"b-7\"}"))
        }
        let transport = CurlTransport(configuration: TransportConfiguration())
        let body = Array("{\"title\":\"Dune\"}".utf8)
        let response = try transport.send(
            HTTPRequest(
                method: "PUT", url: peer.url("/v1/books/b-7"),
                headers: ["If-Match": "\"v1\"", "Idempotency-Key": "k-1", "Content-Type": "application/json"], body: body))
        #expect(response.status == 201)
        #expect(response.reason == "Created")
        #expect(response.headers["etag"] == "\"v2\"")
        #expect(response.headers["x-thing"] == "a")
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"id\":\"b-7\"}")

        let received = try #require(peer.receivedRequests.first)
        #expect(received.hasPrefix("PUT /v1/books/b-7 HTTP/1.1\r\n"))
        #expect(received.contains("\r\nIf-Match: \"v1\"\r\n"))
        #expect(received.contains("\r\nIdempotency-Key: k-1\r\n"))
        #expect(received.contains("\r\nContent-Type: application/json\r\n"))
        #expect(received.contains("\r\nContent-Length: \(body.count)\r\n"))
        #expect(!received.contains("Expect:"))
        #expect(received.hasSuffix("\r\n\r\n{\"title\":\"Dune\"}"))
    }

    @Test func deleteWithoutBodyAndNoFormContentType() throws {
        let peer = try ScriptedPeer { _, _ in .send(httpResponse(204, "No Content")) }
        let transport = CurlTransport(configuration: TransportConfiguration())
        let response = try transport.send(HTTPRequest(method: "DELETE", url: peer.url("/v1/books/b-7")))
        #expect(response.status == 204)
        let empty = try transport.send(HTTPRequest(method: "POST", url: peer.url("/v1/sessions")))
        #expect(empty.status == 204)
        let received = peer.receivedRequests
        #expect(received.count == 2)
        #expect(received.first?.hasPrefix("DELETE /v1/books/b-7 HTTP/1.1\r\n") == true)
        #expect(received.last?.contains("Content-Length: 0\r\n") == true)
        #expect(!received.joined().contains("x-www-form-urlencoded"))
    }

    @Test func ipv6LiteralWorks() throws {
        guard PathProbe.status(forAddresses: ["::1"]) == .available else { return }
        let peer = try ScriptedPeer(host: "::1") { _, _ in .send(httpResponse(200, "OK")) }
        let transport = CurlTransport(configuration: TransportConfiguration())
        let response = try transport.send(HTTPRequest(url: peer.url("/v1/me")))
        #expect(response.status == 200)
        #expect(peer.receivedRequests.first?.contains("Host: [::1]:\(peer.port)") == true)
    }

    @Test func failuresCarryCurlsNumbers() {
        let transport = CurlTransport(configuration: TransportConfiguration())
        do {
            _ = try transport.send(HTTPRequest(url: "http://127.0.0.1:1/"))
            Issue.record("port 1 answered")
        } catch {
            #expect(error.kind == .connectionRefused)
            #expect(error.diagnostics?.code == 7)
            #expect(error.diagnostics?.osErrno == ECONNREFUSED)
            #expect(error.endpoint == ServerOrigin(scheme: "http", host: "127.0.0.1", port: 1))
        }
    }

    @Test func notAURLIsInvalidRequest() {
        let transport = CurlTransport(configuration: TransportConfiguration())
        #expect(throws: TransportFailure.self) { try transport.send(HTTPRequest(url: "books/b-7")) }
    }

    @Test func caBundleFromEnvironment() {
        #expect(TransportConfiguration.fromEnvironment(["LIB_CA_BUNDLE": "/etc/lib/ca.pem"]).caBundlePath == "/etc/lib/ca.pem")
        #expect(TransportConfiguration.fromEnvironment(["LIB_CA_BUNDLE": ""]).caBundlePath == nil)
        #expect(TransportConfiguration.fromEnvironment([:]).caBundlePath == nil)
    }
}

/// libcurl is loaded on first use only, and its absence is reported cleanly.
@Suite struct LazyLoadingTests {
    @Test func probeDoesNotLoadLibcurl() throws {
        let result = try NetCheck.run(["probe", "127.0.0.1"], environment: ["LD_DEBUG": "libs"])
        #expect(result.stdout == "available\n")
        #expect(!result.stderr.contains("libcurl"), "\(result)")
    }

    @Test func requestLoadsLibcurl() throws {
        let result = try NetCheck.run(["request", "http://127.0.0.1:1/"], environment: ["LD_DEBUG": "libs"])
        #expect(result.stderr.contains("libcurl.so.4"), "\(result)")
    }

    @Test func binaryDoesNotLinkLibcurl() throws {
        let result = try CommandRunner.run("/usr/bin/ldd", [NetCheck.path])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("libcurl"), "\(result)")
    }

    @Test func missingLibcurlIsExplained() throws {
        let directory = try TemporaryDirectory("libnet-nocurl")
        // A file that is not a library stands in for a broken or absent one:
        // dlopen finds it first through LD_LIBRARY_PATH and fails.
        try "not a library".write(toFile: directory.file("libcurl.so.4"), atomically: true, encoding: .utf8)
        let result = try NetCheck.run(["request", "http://127.0.0.1:1/"], environment: ["LD_LIBRARY_PATH": directory.path])
        #expect(result.classification == "libcurl-unavailable", "\(result)")
        #expect(result.explanation.hasPrefix("libcurl could not be loaded ("))
        #expect(result.explanation.hasSuffix("): install libcurl4."))
        #expect(result.status == 1)
    }
}
