@testable import LibHTTPServer
import Testing

/// The connection state machine reading requests, without a socket: heads,
/// bodies, limits, and what it refuses.
@Suite struct ConnectionMachineRequestTests {
    typealias Script = MachineScript
    static let get = "GET /books?after=b-3 HTTP/1.1\r\nHost: example.org\r\n\r\n"
    static let put = "PUT /books/b-1 HTTP/1.1\r\nHost: example.org\r\nContent-Length: 10\r\n\r\n0123456789"

    @Test func aNewConnectionWaitsForItsHeadWithinTheHeaderTimeout() {
        let machine = HTTPConnectionMachine(limits: Script.limits, remoteAddress: "192.0.2.7:40000")
        let actions = machine.start()
        #expect(actions.count == 2)
        guard case .setDeadline(let seconds) = actions[0], case .startWaiting = actions[1] else {
            Issue.record("start said \(actions)")
            return
        }
        #expect(seconds == 5)
        #expect(machine.wantsBytes && machine.isIdle)
    }

    @Test func theHeaderTimeoutIsNeverLongerThanTheIdleTimeout() {
        var limits = Script.limits
        limits.idleTimeout = 2
        var script = Script(limits: limits)
        #expect(script.receive("G") == ["deadline 2.0"])
    }

    @Test func theFirstByteStartsTheHeadAndItsClock() {
        var script = Script()
        #expect(script.receive("GE") == ["deadline 5.0"])
        #expect(script.machine.phase == .awaitingHead(started: true))
        #expect(!script.machine.isIdle)
        #expect(script.receive("T / HTTP/1.1\r\n") == [])
    }

    @Test func aCompleteGetIsDispatchedWithItsPathQueryAndPeer() throws {
        var script = Script()
        #expect(script.receive(Self.get) == ["deadline 5.0"] + Script.dispatched("GET /books?after=b-3 body=0"))
        let request = try #require(script.requests.first)
        #expect(request.path == "/books")
        #expect(request.query == ["after": "b-3"])
        #expect(request.headers["Host"] == "example.org")
        #expect(request.remoteAddress == "192.0.2.7:40000")
        #expect(request.version == "HTTP/1.1")
        #expect(!script.machine.wantsBytes && script.machine.isAwaitingAnswer)
    }

    @Test func aRequestSplitAtEveryByteIsTheSameRequest() {
        let bytes = Array(Self.put.utf8)
        for split in 1..<bytes.count {
            var script = Script()
            let first = script.receive(Array(bytes[..<split]))
            let second = script.receive(Array(bytes[split...]))
            let actions = first + second
            #expect(actions.filter { $0.hasPrefix("dispatch") } == ["dispatch PUT /books/b-1 body=10"], "split at \(split)")
            #expect(script.requests.first?.body == Array("0123456789".utf8), "split at \(split)")
            #expect(!actions.contains { $0.hasPrefix("send") }, "split at \(split)")
        }
    }

    @Test func aRequestFedOneByteAtATimeIsDispatchedOnItsLastByte() {
        var script = Script()
        let bytes = Array(Self.get.utf8)
        for (index, byte) in bytes.enumerated() {
            let actions = script.receive([byte])
            if index == bytes.count - 1 {
                #expect(actions == Script.dispatched("GET /books?after=b-3 body=0"))
            } else {
                #expect(actions == (index == 0 ? ["deadline 5.0"] : []), "byte \(index)")
            }
        }
    }

    @Test func aBodySplitAcrossReadsWaitsWithTheBodyDeadlineThenIsDispatchedWhole() {
        var script = Script()
        let head = "POST /notes HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n"
        #expect(script.receive(head + "abc") == ["deadline 5.0", "deadline \(5 + 7 / 65536.0)", "wait"])
        #expect(script.machine.phase == .readingBody(script.machine.headForTests!, length: 7))
        #expect(script.receive("de") == [])
        #expect(script.receive("fg") == Script.dispatched("POST /notes body=7"))
        #expect(script.requests.first?.body == Array("abcdefg".utf8))
    }

    @Test func aLargeBodyGetsTimeForItsSizeButNoMoreThanTheIdleTimeout() {
        var limits = Script.limits
        limits.maxBodyBytes = 10 * 1024 * 1024
        var script = Script(limits: limits)
        #expect(script.receive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 131072\r\n\r\n") == ["deadline 5.0", "deadline 7.0", "wait"])
        var huge = Script(limits: limits)
        #expect(huge.receive("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9000000\r\n\r\n") == ["deadline 5.0", "deadline 30.0", "wait"])
    }

    @Test func emptyLinesBeforeTheRequestLineAreIgnored() {
        var script = Script()
        #expect(script.receive("\r\n\r\n" + Self.get) == ["deadline 5.0"] + Script.dispatched("GET /books?after=b-3 body=0"))
    }

    @Test func aHeadOverTheLimitWithoutItsEndIs431() {
        var script = Script()
        let actions = script.receive("GET /" + String(repeating: "a", count: 300))
        #expect(actions == ["deadline 5.0"] + Script.failed + ["send 431"])
        #expect(script.lastAnswer.contains("Connection: close\r\n"))
        #expect(script.lastAnswer.contains("exceed 256 bytes"))
        #expect(script.machine.phase == .writing(after: .closeGracefully))
    }

    @Test func aCompleteHeadOverTheLimitIs431() {
        var script = Script()
        let head = "GET / HTTP/1.1\r\nHost: h\r\nX-Long: " + String(repeating: "v", count: 250) + "\r\n\r\n"
        #expect(script.receive(head) == ["deadline 5.0"] + Script.failed + ["send 431"])
    }

    @Test func manyHeaderFieldsCountAgainstTheSameLimit() {
        var script = Script()
        let fields = (0..<40).map { "X-\($0): 1\r\n" }.joined()
        #expect(script.receive("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n") == ["deadline 5.0"] + Script.failed + ["send 431"])
        var under = Script()
        let few = (0..<10).map { "X-\($0): 1\r\n" }.joined()
        #expect(under.receive("GET / HTTP/1.1\r\nHost: h\r\n" + few + "\r\n").last == "dispatch GET / body=0")
        #expect(under.requests.first?.headers["X-9"] == "1")
    }

    @Test(arguments: [
        ("Content-Length: abc", "400", "not a non-negative integer"),
        ("Content-Length: -1", "400", "not a non-negative integer"),
        ("Content-Length: 1\r\nContent-Length: 1", "400", "more than once"),
        ("Content-Length: 101", "413", "larger than the limit of 100 bytes"),
        ("Content-Length: 99999999999999999999999", "413", "larger than the limit"),
        ("Transfer-Encoding: chunked", "501", "Transfer-Encoding is not supported"),
    ])
    func bodyFramingItCannotServeIsRefused(field: String, status: String, detail: String) {
        var script = Script()
        #expect(script.receive("POST / HTTP/1.1\r\nHost: h\r\n\(field)\r\n\r\n") == ["deadline 5.0"] + Script.failed + ["send \(status)"])
        #expect(script.lastAnswer.contains(detail))
        #expect(script.requests.isEmpty)
    }

    @Test func anHTTP11RequestWithoutHostIs400() {
        var script = Script()
        #expect(script.receive("GET / HTTP/1.1\r\n\r\n") == ["deadline 5.0"] + Script.failed + ["send 400"])
        #expect(script.lastAnswer.contains("needs a Host header"))
    }

    @Test func anHTTP10RequestNeedsNoHost() {
        var script = Script()
        #expect(script.receive("GET / HTTP/1.0\r\n\r\n").last == "dispatch GET / body=0")
    }

    @Test func http2Is505() {
        var script = Script()
        #expect(script.receive("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == ["deadline 5.0"] + Script.failed + ["send 505"])
    }

    @Test func garbageInTheRequestLineIsRefusedBeforeTheHeadEnds() {
        var script = Script()
        #expect(script.receive("GET /\u{1}") == ["deadline 5.0"] + Script.failed + ["send 400"])
        var spaced = Script()
        #expect(spaced.receive(" GET") == ["deadline 5.0"] + Script.failed + ["send 400"])
    }

    @Test func aBadPercentEncodingInTheTargetIs400AfterTheBody() {
        var script = Script()
        #expect(script.receive("POST /a%zz HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi")
            == ["deadline 5.0"] + Script.failed + ["send 400"])
    }

    @Test func endOfFileBeforeAnyByteClosesWithoutAnswer() {
        var script = Script()
        #expect(script.endOfFile() == ["close"])
        #expect(script.sent.isEmpty)
    }

    @Test func endOfFileInTheMiddleOfAHeadIs400() {
        var script = Script()
        _ = script.receive("GET / HTTP/1.1\r\nHo")
        #expect(script.endOfFile() == Script.failed + ["send 400"])
        #expect(script.lastAnswer.contains("before the request head was complete"))
    }

    @Test func endOfFileInTheMiddleOfABodyIs400() {
        var script = Script()
        _ = script.receive("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
        #expect(script.endOfFile() == Script.failed + ["send 400"])
        #expect(script.lastAnswer.contains("closed after 3 of 10 body bytes"))
    }

    @Test func expect100ContinueIsAnsweredBeforeTheBodyAndReadingGoesOn() {
        var script = Script()
        let head = "PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"
        #expect(script.receive(head) == ["deadline 5.0", "deadline \(5 + 4 / 65536.0)", "wait", "send 100"])
        #expect(String(decoding: script.sent, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(script.allSent() == [])
        #expect(script.sendBlocked() == [])
        #expect(script.machine.wantsBytes)
        #expect(script.receive("body") == Script.dispatched("PUT /x body=4"))
    }

    @Test func expect100ContinueIsNotAnsweredToHTTP10OrWhenTheBodyIsHere() {
        var old = Script()
        #expect(!old.receive("PUT /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n").contains("send 100"))
        var here = Script()
        #expect(here.receive("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody")
            == ["deadline 5.0"] + Script.dispatched("PUT /x body=4"))
        #expect(here.sent.isEmpty)
    }
}

extension HTTPConnectionMachine {
    /// The head of the request being read (tests compare phases with it).
    var headForTests: RequestHead? {
        switch phase {
        case .readingBody(let head, _), .handling(let head): head
        default: nil
        }
    }
}
