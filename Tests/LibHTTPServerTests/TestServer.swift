import Foundation
import LibHTTPServer
import TestSupport

/// An in-process HTTPServer on a loopback port, running on a background
/// thread, stopped when released.
final class TestServer: Sendable {
    let server: HTTPServer
    let port: Int
    let host: String
    private let finished = DispatchSemaphore(value: 0)

    init(
        host: String = "127.0.0.1", limits: HTTPServerLimits = HTTPServerLimits(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPReply = TestServer.echo
    ) throws {
        self.host = host
        server = HTTPServer(limits: limits, handler: handler)
        port = try server.bind(host: host, port: 0)
        let server = self.server, finished = self.finished
        Thread.detachNewThread {
            server.run()
            finished.signal()
        }
    }

    deinit { server.stop(grace: 0) }

    func client(timeout: Double = 5) throws -> HTTPTestClient {
        try HTTPTestClient(host: host, port: port, timeout: timeout)
    }

    /// Stops the server; true when run() returned within `timeout` seconds.
    func stop(grace: Double = 2, timeout: Double = 10) -> Bool {
        server.stop(grace: grace)
        return finished.wait(timeout: .now() + timeout) == .success
    }

    /// Answers `METHOD PATH?sorted-query` and the body on a second line, and
    /// reports the peer in `X-Remote`. A few paths misbehave on purpose:
    /// `/status/N`, `/sleep/MS`, `/close-without-answer`, `/truncate/N`,
    /// `/connection-close`.
    static let echo: @Sendable (HTTPRequest) -> HTTPReply = { request in
        let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        let text = "\(request.method) \(request.path)\(query.isEmpty ? "" : "?" + query)\n"
            + String(decoding: request.body, as: UTF8.self)
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-Remote", request.remoteAddress)])
        let parts = request.path.split(separator: "/").map(String.init)
        switch (parts.first, parts.count > 1 ? Int(parts[1]) : nil) {
        case ("status", let status?):
            return .respond(HTTPResponse(status: status, headers: headers, body: Array("x".utf8)))
        case ("sleep", let milliseconds?):
            usleep(UInt32(milliseconds) * 1000)
        case ("close-without-answer", _):
            return .closeWithoutAnswer
        case ("truncate", let count?):
            return .truncate(HTTPResponse(status: 200, body: Array("0123456789".utf8)), afterBytes: count)
        case ("connection-close", _):
            headers.add("Connection", "close")
        default:
            break
        }
        return .respond(HTTPResponse(status: 200, headers: headers, body: Array(text.utf8)))
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
