import LibBase
import LibClient
import LibNet
import Synchronization

/// A transport that answers from a script, by request target, and keeps
/// every request it was sent: LibClient's tests start no process and open
/// no socket.
final class ScriptedTransport: HTTPTransport, Sendable {
    typealias Answer = @Sendable (HTTPRequest) throws(TransportFailure) -> HTTPResponse

    private let script: Mutex<[(method: String, target: String, answer: Answer)]> = Mutex([])
    private let sent: Mutex<[HTTPRequest]> = Mutex([])

    static let origin = ServerOrigin(scheme: "http", host: "127.0.0.1", port: 8080)

    /// Answers `method` requests whose target (path and query) starts with `target`.
    func on(_ method: String, _ target: String, _ answer: @escaping Answer) {
        script.withLock { $0.append((method, target, answer)) }
    }

    func on(_ method: String, _ target: String, _ response: HTTPResponse) {
        on(method, target) { _ in response }
    }

    var requests: [HTTPRequest] { sent.withLock { $0 } }

    /// The targets asked for, in order: `/v1/books?limit=1000`.
    var targets: [String] { requests.map { String($0.url.dropFirst(Self.origin.url.count)) } }

    func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
        sent.withLock { $0.append(request) }
        let target = String(request.url.dropFirst(Self.origin.url.count))
        let answer = script.withLock { script in
            script.last { $0.method == request.method && target.hasPrefix($0.target) }?.answer
        }
        guard let answer else { return HTTPResponse(status: 599, reason: "no script for \(request.method) \(target)") }
        return try answer(request)
    }
}

/// Answers as the library server and others send them.
enum Reply {
    static func json(_ status: Int, _ body: String, _ headers: [(String, String)] = []) -> HTTPResponse {
        var fields = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in headers { fields.add(name, value) }
        return HTTPResponse(status: status, headers: fields, body: Array(body.utf8))
    }

    static func problem(_ status: Int, _ detail: String, _ headers: [(String, String)] = []) -> HTTPResponse {
        var fields = HTTPHeaders([("Content-Type", "application/problem+json")])
        for (name, value) in headers { fields.add(name, value) }
        return HTTPResponse(status: status, headers: fields, body: Array(#"{"status":\#(status),"detail":"\#(detail)"}"#.utf8))
    }

    static func page(_ status: Int, _ type: String, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": type], body: Array(body.utf8))
    }

    static let dune = #"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965}"#
    static let duneETag = "\"1-a\""
}

/// The failure `body` threw, when it is a `RequestFailure`.
func failure(_ body: () throws -> Void) -> RequestFailure? {
    do { try body() } catch { return error as? RequestFailure }
    return nil
}

/// The words of a not-the-library-server failure, or nil for any other outcome.
func doubt(_ body: () throws -> Void) -> String? {
    guard case .transport(let failure)? = failure(body), case .notFromLibraryServer(let seen) = failure.kind else { return nil }
    return seen
}
