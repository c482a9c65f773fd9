import Foundation
import LibJSON
import Testing
import TestSupport

/// Two lib-servers on one database behave as one server.
@Suite struct MultiInstanceTests {
    @Test func twoServersStartedTogetherWithDemoOnANewDatabaseBothStart() throws {
        let directory = try TemporaryDirectory("lib-server-pair")
        let database = try TestDatabase.fresh(in: directory)
        let started = Box<Int>()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            if let server = try? ServerProcess(database: database) {
                _ = try? HTTPTestClient(port: server.port).request("GET", "/v1/me")
                started.update { ($0 ?? 0) + 1 }
            }
        }
        #expect(started.get() == 2)
    }

    @Test func theSamePUTWithTheSameKeyToBothServersIsAppliedOnce() throws {
        let pair = try ServerPair()
        let alice = try pair.first.signIn("alice")
        var seen: [Int] = []
        let trials = 30
        for trial in 0..<trials {
            let etag = try alice.etag(of: "b-7")
            let body = #"{"title":"Dune, trial \#(trial)"}"#
            let key = "once-\(trial)"
            let sessions = try [pair.first, pair.second].map {
                SignedInClient(client: try $0.client(), token: alice.token, userID: alice.userID)
            }
            let answers = Answers()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                var answer = try? sessions[index].put("b-7", body, ifMatch: etag, key: key)
                answers.note(answer?.status ?? -1)
                // A 409 means the other server has the key in flight: retry until it answers.
                var retries = 0
                while answer?.status == 409, retries < 200 {
                    usleep(25_000)
                    answer = try? sessions[index].put("b-7", body, ifMatch: etag, key: key)
                    answers.note(answer?.status ?? -1)
                    retries += 1
                }
                answers.finish(index, answer)
            }
            let final = answers.final
            seen += answers.statuses
            #expect(final.map(\.status) == [200, 200], "trial \(trial): \(answers.statuses)")
            #expect(final.filter { $0.replayed }.count == 1, "trial \(trial): exactly one applied, one replayed")
            #expect(Set(final.map(\.etag)).count == 1, "trial \(trial): both carry the one new ETag")
        }
        #expect(seen.allSatisfy { $0 == 200 || $0 == 409 }, "no 412, no 5xx: \(seen)")
        #expect(try pair.first.history("b-7", as: alice).count == 1 + trials, "each write applied once")
    }

    @Test func aTokenAndAnETagFromOneServerWorkOnTheOther() throws {
        let pair = try ServerPair()
        let alice = try pair.first.signIn("alice")
        let onSecond = SignedInClient(client: try pair.second.client(), token: alice.token, userID: alice.userID)
        let written = try alice.put("b-7", #"{"title":"From the first"}"#, ifMatch: try alice.etag(of: "b-7"))
        #expect(written.status == 200)
        #expect(try onSecond.get("/v1/books/b-7").header("ETag") == written.header("ETag"))
        let stale = try onSecond.put("b-7", #"{"title":"Stale"}"#, ifMatch: "\"1-stale\"")
        #expect(stale.status == 412)
        #expect(try alice.client.request("DELETE", "/v1/sessions/current",
                                         headers: [("Authorization", "Bearer \(alice.token)")]).status == 204)
        #expect(try onSecond.get("/v1/books/b-7").status == 401, "a revoked token stops working on every server")
    }

    /// A server on SQLite answers a signed-in GET it answered before from
    /// memory while the database is unchanged (`RememberedReads`): a change
    /// or a sign-out through the other server must end that at once, for
    /// each of its pooled connections (hence the repeated reads).
    @Test func whatAServerRemembersEndsWhenTheOtherServerWrites() throws {
        let pair = try ServerPair()
        let alice = try pair.first.signIn("alice")
        let onSecond = SignedInClient(client: try pair.second.client(), token: alice.token, userID: alice.userID)
        let before = try #require(try onSecond.get("/v1/books/b-7").header("ETag"))
        for _ in 0..<20 { #expect(try onSecond.get("/v1/books/b-7").header("ETag") == before) }
        let written = try alice.put("b-7", #"{"title":"Changed on the first"}"#, ifMatch: before)
        #expect(written.status == 200)
        for _ in 0..<20 {
            let read = try onSecond.get("/v1/books/b-7")
            #expect(read.header("ETag") == written.header("ETag"))
            #expect(read.text.contains("Changed on the first"))
        }
        #expect(try alice.client.request("DELETE", "/v1/sessions/current",
                                         headers: [("Authorization", "Bearer \(alice.token)")]).status == 204)
        for _ in 0..<20 { #expect(try onSecond.get("/v1/books/b-7").status == 401, "revoked on the other server") }
    }

    /// The same on one server: a write through one pooled connection ends
    /// what the others remember, and the writing one forgets its own.
    @Test func whatAServerRemembersEndsWhenItWritesItself() throws {
        let server = try DemoServer()
        let alice = try server.signIn("alice")
        for round in 0..<5 {
            let before = try alice.etag(of: "b-7")
            for _ in 0..<10 { #expect(try alice.get("/v1/books/b-7").header("ETag") == before) }
            let written = try alice.put("b-7", #"{"title":"Round \#(round)"}"#, ifMatch: before)
            #expect(written.status == 200)
            for _ in 0..<10 { #expect(try alice.get("/v1/books/b-7").header("ETag") == written.header("ETag")) }
        }
    }
}

/// Two servers on one database (the first installs the demo data).
final class ServerPair: Sendable {
    let first: DemoServer
    let second: DemoServer

    init() throws {
        first = try DemoServer()
        second = try DemoServer(sharing: first)
    }
}

/// What the two racing clients of one trial saw.
final class Answers: @unchecked Sendable {
    struct Final { let status: Int; let replayed: Bool; let etag: String? }
    private let lock = NSLock()
    private var all: [Int] = []
    private var finals: [Int: Final] = [:]

    func note(_ status: Int) { lock.lock(); all.append(status); lock.unlock() }

    func finish(_ index: Int, _ answer: HTTPTestResponse?) {
        lock.lock()
        finals[index] = Final(status: answer?.status ?? -1, replayed: answer?.header("Idempotent-Replayed") == "true",
                              etag: answer?.header("ETag"))
        lock.unlock()
    }

    var statuses: [Int] { lock.lock(); defer { lock.unlock() }; return all }
    var final: [Final] { lock.lock(); defer { lock.unlock() }; return finals.keys.sorted().compactMap { finals[$0] } }
}
