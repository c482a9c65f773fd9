import Foundation
import LibBase
import LibHTTPServer
import LibJSON
@testable import LibServer
import Synchronization
import Testing
import TestSupport

/// A million guesses at device sign-in's user codes: throttled, and none
/// succeeds. Two runs, each in seconds:
///
/// - Over real sockets, from one address, for a bounded time: a few
///   keep-alive connections send guesses as fast as the server answers.
///   Every guess past the address's budget (10, then 10 a minute) is a
///   429, the right code included, and the accepted ones stay within it.
///   At the rate measured, a million guesses would take minutes here; the
///   budget does not depend on the rate, so the share accepted only falls.
/// - In process, from 10,000 addresses, on a clock that moves on so that
///   the guesses span 1,000 s (longer than a code lives): the global budget
///   (100, then 100 a minute) holds the accepted guesses to at most
///   100 + 100 × 1000/60 ≈ 1,767, and none of them is one of the waiting
///   codes. `make test` sends 100,000 (3 s); `make stress` (LIB_STRESS=1)
///   the full million (about 30 s in a debug build), with the same bound:
///   the budget is per minute, so ten times the guesses in the same time
///   are accepted no more often.
@Suite struct UserCodeGuessingTests {
    @Test func guessesFromOneAddressOverSocketsAreRefusedPastItsBudget() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let grant = try demo.client().request("POST", "/v1/device/code", body: "")
        let userCode = try #require(grant.json?["user_code"]?.stringValue)
        let deviceCode = try #require(grant.json?["device_code"]?.stringValue)

        let counts = Mutex<[Int: Int]>([:])
        let started = MonotonicClock.now()
        let seconds = 3.0
        let group = DispatchGroup()
        for worker in 0..<4 {
            OwnThread.start(in: group) {
                guard let client = try? demo.client() else { return }
                var random = SeededRandom(seed: UInt64(worker + 1))
                var seen: [Int: Int] = [:]
                while MonotonicClock.now() - started < seconds {
                    let guess = String((0..<8).map { _ in DeviceGrants.userCodeAlphabet[Int(random.next() % 20)] })
                    let answer = try? client.request("POST", "/v1/device/approve",
                                                     headers: [("Authorization", "Bearer \(alice.token)"), ("Content-Type", "application/json")],
                                                     body: #"{"user_code":"\#(guess)"}"#)
                    seen[answer?.status ?? 0, default: 0] += 1
                }
                counts.withLock { all in for (status, n) in seen { all[status, default: 0] += n } }
            }
        }
        group.wait()
        let elapsed = MonotonicClock.now() - started
        let seen = counts.withLock { $0 }
        let total = seen.values.reduce(0, +)
        let accepted = seen[404, default: 0]
        #expect(seen[200, default: 0] == 0, "a guess approved a code: \(seen)")
        #expect(Set(seen.keys).isSubset(of: [404, 429]), "\(seen)")
        #expect(accepted <= 10 + Int(elapsed * 10 / 60) + 1, "\(accepted) guesses were looked up in \(elapsed) s: \(seen)")
        #expect(seen[429, default: 0] >= total - accepted && total > 100, "\(seen)")
        // The right code, sent now, is refused too: a refused guess learns nothing.
        let right = try alice.client.request("POST", "/v1/device/approve",
                                             headers: [("Authorization", "Bearer \(alice.token)"), ("Content-Type", "application/json")],
                                             body: #"{"user_code":"\#(userCode)"}"#)
        #expect(right.status == 429 && right.header("Retry-After") != nil)
        let poll = try demo.client().request("POST", "/v1/device/token", body: "device_code=\(deviceCode)")
        #expect(poll.json?["error"] == "authorization_pending", "\(poll.text)")
        print("UserCodeGuessingTests: \(total) guesses in \(String(format: "%.1f", elapsed)) s over sockets, \(accepted) looked up")
    }

    @Test func aMillionGuessesFromManyAddressesAreHeldToTheGlobalBudget() throws {
        let directory = try TemporaryDirectory("user-code-guessing")
        let store = try ServerDatabase.open(directory.file("server.sqlite"))
        try DemoData.install(in: store, at: ServerClock.system.now())
        let clock = Mutex(1_800_000_000.0)
        let service = LibraryService(store: store, clock: ServerClock { clock.withLock { $0 } })
        let waiting = try (0..<20).map { _ in
            try #require(try service.answer("POST", "/v1/device/code").json?["user_code"]?.stringValue)
        }

        var random = SeededRandom(seed: 50)
        var statuses: [Int: Int] = [:]
        let guesses = ProcessInfo.processInfo.environment["LIB_STRESS"] == "1" ? 1_000_000 : 100_000
        let step = 1000.0 / Double(guesses)
        for n in 0..<guesses {
            let guess = String((0..<8).map { _ in DeviceGrants.userCodeAlphabet[Int(random.next() % 20)] })
            let request = HTTPRequest(method: "POST", target: "/device", path: "/device", query: [:],
                                      headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                                      body: Array("user_code=\(guess)&action=deny".utf8),
                                      remoteAddress: "10.0.\(n % 10_000 / 100).\(n % 100):40000")
            guard case .respond(let response) = service.handle(request) else { throw RouteTestFailure.noResponse }
            statuses[response.status, default: 0] += 1
            clock.withLock { $0 += step }
        }
        let accepted = statuses[400, default: 0]
        #expect(statuses[200, default: 0] == 0, "a guess denied a waiting code: \(statuses)")
        #expect(accepted <= 100 + 100 * 1000 / 60 + 1, "\(statuses)")
        #expect(statuses[429, default: 0] == guesses - accepted, "\(statuses)")
        // Every waiting code is still waiting.
        let stillWaiting = try store.read { db in
            try waiting.filter { try DeviceGrants.standing(ofUserCode: $0, at: clock.withLock { $0 } - 1000, in: db) == .pending }
        }
        #expect(stillWaiting.count == waiting.count)
        print("UserCodeGuessingTests: \(guesses) guesses in process, \(accepted) looked up: \(statuses)")
    }
}

extension HTTPResponse {
    fileprivate var json: JSONValue? { try? JSONParser.parse(body) }
}
