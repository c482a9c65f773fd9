@testable import LibHTTPServer

/// Drives an `HTTPConnectionMachine` without a socket and writes what it
/// says as short lines, so that a test states the exact actions:
/// `deadline 5.0`, `wait`, `stop waiting`, `clear deadline`,
/// `dispatch GET /path body=N`, `send 431`, `shut down sending`, `close`.
struct MachineScript {
    static let limits: HTTPServerLimits = {
        var limits = HTTPServerLimits()
        limits.maxHeaderBytes = 256
        limits.maxBodyBytes = 100
        limits.headerTimeout = 5
        limits.idleTimeout = 30
        return limits
    }()

    let machine: HTTPConnectionMachine
    /// Every request dispatched so far.
    private(set) var requests: [HTTPRequest] = []
    /// Every byte sent so far.
    private(set) var sent: [UInt8] = []

    /// A machine that has started (its opening actions are dropped).
    init(limits: HTTPServerLimits = MachineScript.limits) {
        machine = HTTPConnectionMachine(limits: limits, remoteAddress: "192.0.2.7:40000")
        _ = machine.start()
    }

    mutating func receive(_ text: String) -> [String] { record(machine.received(ArraySlice(text.utf8))) }
    mutating func receive(_ bytes: [UInt8]) -> [String] { record(machine.received(bytes[...])) }
    mutating func endOfFile() -> [String] { record(machine.receivedEndOfFile()) }
    mutating func deadline() -> [String] { record(machine.deadlinePassed()) }
    mutating func allSent(stopping: Bool = false) -> [String] { record(machine.allSent(serverStopping: stopping)) }
    mutating func sendBlocked() -> [String] { record(machine.sendBlocked()) }

    mutating func answer(_ reply: HTTPReply, stopping: Bool = false) -> [String] {
        record(machine.answer(reply, serverStopping: stopping, date: "Sun, 06 Nov 1994 08:49:37 GMT"))
    }

    mutating func answer(status: Int = 200, body: String = "ok", headers: HTTPHeaders = HTTPHeaders()) -> [String] {
        answer(.respond(HTTPResponse(status: status, headers: headers, body: Array(body.utf8))))
    }

    /// The last answer sent, as text (from its status line on).
    var lastAnswer: String {
        let text = String(decoding: sent, as: UTF8.self)
        guard let start = text.range(of: "HTTP/1.1 ", options: .backwards) else { return "" }
        return String(text[start.lowerBound...])
    }

    mutating func record(_ actions: [HTTPConnectionMachine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .setDeadline(let seconds): return "deadline \(seconds)"
            case .clearDeadline: return "clear deadline"
            case .startWaiting: return "wait"
            case .stopWaiting: return "stop waiting"
            case .dispatch(let request):
                requests.append(request)
                return "dispatch \(request.method) \(request.target) body=\(request.body.count)"
            case .send(let bytes):
                sent += bytes
                let text = String(decoding: bytes.prefix(12), as: UTF8.self)
                return text.hasPrefix("HTTP/1.1 ") ? "send \(text.dropFirst(9))" : "send \(bytes.count) bytes"
            case .shutDownSending: return "shut down sending"
            case .close: return "close"
            }
        }
    }
}

extension MachineScript {
    /// What an answer the server gives on its own looks like: the answer sent, then closing.
    static let failed = ["stop waiting", "clear deadline"]
    /// After a request is read: the wait and its deadline end, and it goes to the handler.
    static func dispatched(_ line: String) -> [String] { ["stop waiting", "clear deadline", "dispatch \(line)"] }
    /// After the last answer on a connection is sent.
    static let drains = ["shut down sending", "deadline 1.0"]
}
