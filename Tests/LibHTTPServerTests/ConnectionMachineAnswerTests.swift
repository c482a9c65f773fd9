@testable import LibHTTPServer
import Testing

/// The connection state machine answering, without a socket: keep-alive,
/// pipelining, draining before the close, and the deadline of each phase.
@Suite struct ConnectionMachineAnswerTests {
    typealias Script = MachineScript
    static let get = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"

    /// A machine with `request` dispatched.
    static func handling(_ request: String = get) -> Script {
        var script = Script()
        _ = script.receive(request)
        return script
    }

    @Test func anHTTP11AnswerKeepsTheConnectionAndWaitsWithTheIdleTimeout() {
        var script = Self.handling()
        #expect(script.answer(body: "hello") == ["stop waiting", "clear deadline", "send 200"])
        #expect(script.lastAnswer == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\nhello")
        #expect(script.machine.phase == .writing(after: .nextRequest))
        #expect(script.allSent() == ["deadline 30.0", "wait"])
        #expect(script.machine.isIdle)
    }

    @Test func connectionCloseFromTheClientClosesAfterTheAnswer() {
        var script = Self.handling("GET /a HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n")
        _ = script.answer()
        #expect(script.lastAnswer.contains("Connection: close\r\n"))
        #expect(script.allSent() == Script.drains)
        #expect(script.machine.phase == .draining)
    }

    @Test func http10ClosesUnlessToldKeepAlive() {
        var old = Self.handling("GET /a HTTP/1.0\r\n\r\n")
        _ = old.answer()
        #expect(old.lastAnswer.contains("Connection: close\r\n"))
        #expect(old.allSent() == Script.drains)

        var kept = Self.handling("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        _ = kept.answer()
        #expect(kept.lastAnswer.contains("Connection: keep-alive\r\n"))
        #expect(kept.allSent() == ["deadline 30.0", "wait"])
    }

    @Test func aHandlerThatSaysConnectionCloseClosesAfterItsAnswer() {
        var script = Self.handling()
        _ = script.answer(headers: HTTPHeaders([("Connection", "close")]))
        #expect(script.lastAnswer.components(separatedBy: "Connection:").count == 2)
        #expect(script.lastAnswer.contains("Connection: close\r\n"))
        #expect(script.allSent() == Script.drains)
    }

    @Test func aStoppingServerKeepsNoConnection() {
        var answered = Self.handling()
        _ = answered.answer(.respond(HTTPResponse(status: 200)), stopping: true)
        #expect(answered.lastAnswer.contains("Connection: close\r\n"))
        #expect(answered.allSent() == Script.drains)

        var sent = Self.handling()
        _ = sent.answer()
        #expect(sent.allSent(stopping: true) == Script.drains)
    }

    @Test func anAnswerToHeadHasTheLengthButNoBody() {
        var script = Self.handling("HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = script.answer(body: "twelve bytes")
        #expect(script.lastAnswer.hasSuffix("Content-Length: 12\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n"))
    }

    @Test func twoPipelinedRequestsInOneReadAreServedOneAfterTheOther() {
        var script = Script()
        let actions = script.receive("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(actions == ["deadline 5.0"] + Script.dispatched("GET /1 body=0"))
        #expect(script.machine.unconsumed == "GET /2 HTTP/1.1\r\nHost: h\r\n\r\n".utf8.count)
        #expect(script.answer(body: "one") == ["stop waiting", "clear deadline", "send 200"])
        #expect(script.allSent() == ["deadline 5.0", "wait"] + Script.dispatched("GET /2 body=0"))
        _ = script.answer(body: "two")
        #expect(script.allSent() == ["deadline 30.0", "wait"])
        #expect(script.requests.map(\.path) == ["/1", "/2"])
    }

    @Test func bytesOfTheNextRequestThatArriveWhileTheHandlerWorksWaitForTheAnswer() {
        var script = Self.handling()
        #expect(script.receive("PUT /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxy") == [])
        #expect(script.requests.count == 1)
        _ = script.answer()
        #expect(script.allSent() == ["deadline 5.0", "wait", "deadline \(5 + 3 / 65536.0)", "wait"])
        #expect(script.receive("z") == Script.dispatched("PUT /b body=3"))
    }

    @Test func aPipelinedRequestBehindConnectionCloseIsNeverServed() {
        var script = Script()
        _ = script.receive("GET /1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = script.answer()
        #expect(script.allSent() == Script.drains)
        #expect(script.machine.unconsumed == 0)
        #expect(script.receive("GET /3 HTTP/1.1\r\nHost: h\r\n\r\n") == [])
        #expect(script.requests.map(\.path) == ["/1"])
    }

    @Test func afterAnErrorAnswerTheConnectionDrainsUntilTheEndOfFile() {
        var script = Script()
        _ = script.receive("GET / HTTP/1.1\r\n\r\n")
        #expect(script.allSent() == Script.drains)
        #expect(script.machine.wantsBytes)
        #expect(script.receive("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == [])
        #expect(script.receive(String(repeating: "x", count: 1000)) == [])
        #expect(script.requests.isEmpty)
        #expect(script.endOfFile() == ["close"])
    }

    @Test func aDrainThatOutlastsItsSecondIsClosed() {
        var script = Script()
        _ = script.receive("BAD\u{7f}")
        _ = script.allSent()
        #expect(script.deadline() == ["close"])
    }

    @Test func closeWithoutAnswerSendsNothingAndDrains() {
        var script = Self.handling()
        #expect(script.answer(.closeWithoutAnswer) == Script.drains)
        #expect(script.sent.isEmpty)
    }

    @Test func aTruncatedAnswerSendsExactlyThatManyBytesThenDrains() {
        var script = Self.handling()
        let response = HTTPResponse(status: 200, body: Array("0123456789".utf8))
        #expect(script.answer(.truncate(response, afterBytes: 7)) == ["stop waiting", "clear deadline", "send 7 bytes"])
        #expect(String(decoding: script.sent, as: UTF8.self) == "HTTP/1.")
        #expect(script.allSent() == Script.drains)
    }

    @Test func anAnswerOnlyCountsWhileTheHandlerHasTheRequest() {
        var script = Script()
        #expect(script.answer() == [])
        _ = script.receive("GET / HTTP/1.1\r\n")
        #expect(script.answer() == [])
        #expect(script.sent.isEmpty)
    }

    @Test func aLaterReplyChangesNothingUntilItsAnswerComes() {
        var script = Self.handling()
        #expect(script.answer(.later(PendingReply(answerAtStop: HTTPResponse(status: 204)))) == [])
        #expect(script.machine.isAwaitingAnswer)
        #expect(script.answer(status: 204) == ["stop waiting", "clear deadline", "send 204"])
    }

    @Test func aFullServersRefusalIsSentAndTheConnectionDrains() {
        var script = Script()
        let refusal = LoopAdmission.refusal(status: 503, detail: LoopAdmission.fullDetail)
        #expect(script.record(script.machine.refuse(refusal)) == ["stop waiting", "clear deadline", "send 503"])
        #expect(script.lastAnswer.contains("Retry-After: 1\r\n"))
        #expect(script.allSent() == Script.drains)
    }

    // MARK: Deadlines

    @Test func nothingArrivingBeforeTheDeadlineIsASilentClose() {
        var script = Script()
        #expect(script.deadline() == ["close"])
        #expect(script.sent.isEmpty)
    }

    @Test func aHeadThatDoesNotArriveInTimeIs408() {
        var script = Script()
        _ = script.receive("GET / HT")
        #expect(script.deadline() == Script.failed + ["send 408"])
        #expect(script.lastAnswer.contains("headers did not arrive within 5.0 seconds"))
        #expect(script.allSent() == Script.drains)
    }

    @Test func aBodyThatDoesNotArriveInTimeIs408() {
        var script = Script()
        _ = script.receive("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 50\r\n\r\nabc")
        #expect(script.deadline() == Script.failed + ["send 408"])
        #expect(script.lastAnswer.contains("body did not arrive within 6 seconds"))
    }

    @Test func theHandlersTimeIsNotBoundedByADeadline() {
        var script = Self.handling()
        #expect(script.deadline() == [])
        #expect(script.machine.isAwaitingAnswer)
    }

    @Test func aPeerThatTakesNoBytesIsGivenTheIdleTimeoutThenClosed() {
        var script = Self.handling()
        _ = script.answer()
        #expect(script.sendBlocked() == ["deadline 30.0"])
        #expect(script.deadline() == ["close"])
    }

    @Test func anIdleKeptAliveConnectionClosesSilentlyAtItsDeadline() {
        var script = Self.handling()
        _ = script.answer()
        _ = script.allSent()
        #expect(script.deadline() == ["close"])
        #expect(script.endOfFile() == ["close"])
    }

    @Test func theNextRequestOnAKeptAliveConnectionGetsTheHeaderTimeoutFromItsFirstByte() {
        var script = Self.handling()
        _ = script.answer()
        _ = script.allSent()
        #expect(script.receive("G") == ["deadline 5.0"])
        #expect(script.deadline() == Script.failed + ["send 408"])
    }

    @Test func keepAliveTokensAreMatchedInListsWithoutRegardToCase() {
        func head(_ version: String, _ connection: String?) -> RequestHead {
            var headers = HTTPHeaders()
            if let connection { headers.add("Connection", connection) }
            return RequestHead(method: "GET", target: "/", version: version, headers: headers)
        }
        #expect(HTTPConnectionMachine.wantsKeepAlive(head("HTTP/1.1", nil)))
        #expect(!HTTPConnectionMachine.wantsKeepAlive(head("HTTP/1.1", "upgrade, CLOSE")))
        #expect(!HTTPConnectionMachine.wantsKeepAlive(head("HTTP/1.0", nil)))
        #expect(HTTPConnectionMachine.wantsKeepAlive(head("HTTP/1.0", " keep-alive ")))
        #expect(!HTTPConnectionMachine.wantsKeepAlive(head("HTTP/1.0", "keep-alive, close")))
    }
}
