import Foundation
import Synchronization
@testable import LibHTTPServer
import Testing

/// `PendingReply.whenCompleted`: what counts an answer that comes later
/// hears of the first completion once, whether it asked before or after.
@Suite struct PendingReplyTests {
    static func status(_ reply: HTTPReply) -> Int {
        if case .respond(let response) = reply { return response.status }
        return -1
    }

    @Test func anObserverHearsTheFirstCompletionOnce() {
        let pending = PendingReply(answerAtStop: HTTPResponse(status: 503))
        let heard = Mutex<[Int]>([])
        pending.whenCompleted { reply in heard.withLock { $0.append(Self.status(reply)) } }
        pending.complete(.respond(HTTPResponse(status: 200)))
        pending.complete(.respond(HTTPResponse(status: 500)))
        #expect(heard.withLock { $0 } == [200])
    }

    @Test func anObserverAfterTheCompletionHearsOfItAtOnce() {
        let pending = PendingReply(answerAtStop: HTTPResponse(status: 503))
        pending.complete(.respond(HTTPResponse(status: 204)))
        let heard = Mutex<[Int]>([])
        pending.whenCompleted { reply in heard.withLock { $0.append(Self.status(reply)) } }
        #expect(heard.withLock { $0 } == [204])
    }
}
