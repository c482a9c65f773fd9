import Foundation
import Testing
import TestSupport

/// Taking an instance out from behind nginx without failing a request
/// (issue 50), as docs/DEPLOY.md's procedure says: drain it (POST /drain),
/// wait for /readyz to say 503, stop it. Draining closes every kept-alive
/// connection after its answer, so nginx never sends a request down one the
/// instance is about to close; once it is stopped, nginx's passive check
/// (`max_fails`) and `proxy_next_upstream` send everything to the other.
@Suite(.enabled(if: NginxReverseProxy.isInstalled, "needs nginx (scripts/install-deps.sh)"))
struct DrainBehindNginxTests {
    @Test func aDrainedInstanceLeavesNginxsPoolWithoutAFailedRequest() throws {
        let directory = try TemporaryDirectory("lib-e2e-drain")
        // Some reads are slow, so that requests are in flight at the drain and at the stop.
        let arguments = ["--ops-listen", "127.0.0.1:0", "--fault", "delay=100,path=/v1/books/b-5"]
        let leaving = try ServerProcess(database: directory.file("server.sqlite"), extraArguments: arguments, owning: directory)
        let staying = try ServerProcess(database: directory.file("server.sqlite"), demo: false, extraArguments: arguments)
        let nginx = try NginxReverseProxy(upstreamPorts: [leaving.port, staying.port], balancing: true)
        let token = try #require(try DatabaseRestartTests.token(try HTTPTestClient(port: nginx.port), "alice"))

        let answers = Shared<[Int: Int]>([:])
        let failures = Shared<[String]>([])
        let stop = Flag()
        var workers: [Flag] = []
        for worker in 0..<4 {
            let done = Flag()
            workers.append(done)
            Thread {
                var client = try? HTTPTestClient(port: nginx.port)
                var n = worker
                while !stop.isSet {
                    n += 1
                    do {
                        if client == nil { client = try HTTPTestClient(port: nginx.port) }
                        let answer = try client!.request("GET", "/v1/books/b-\(n % 20 + 1)", headers: [("Authorization", "Bearer \(token)")])
                        answers.withLock { $0[answer.status, default: 0] += 1 }
                        if answer.status != 200 { failures.withLock { $0.append("\(answer.status) \(answer.text)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                        client = nil
                    }
                }
                done.set()
            }.start()
        }
        func answered() -> Int { answers.value.values.reduce(0, +) }
        func waitForMoreAnswers(_ count: Int) -> Bool {
            let target = answered() + count
            return ProcessState.waitUntil(timeout: 60) { answered() >= target }
        }

        #expect(waitForMoreAnswers(200))
        let ops = try HTTPTestClient(port: try #require(leaving.operationsPort))
        #expect(try ops.request("POST", "/drain").status == 200)
        #expect(try ProcessState.waitUntil(timeout: 10) { try ops.request("GET", "/readyz").status == 503 })
        #expect(waitForMoreAnswers(200), "the draining instance still serves while nginx moves away")
        let servedBeforeStop = try servedRequests(leaving)
        #expect(leaving.stop() == 0)
        #expect(waitForMoreAnswers(300), "the other instance takes the load")
        stop.set()
        #expect(ProcessState.waitUntil(timeout: 30) { workers.allSatisfy(\.isSet) })

        #expect(failures.value.isEmpty, "failed requests: \(failures.value.prefix(10)) of \(answers.value)")
        #expect(answers.value.keys.sorted() == [200], "\(answers.value)")
        #expect(servedBeforeStop > 0, "both instances served: the leaving one \(servedBeforeStop)")
        #expect(try servedRequests(staying) > 300, "the staying instance served the rest")
        print("drain behind nginx: \(answered()) requests, \(failures.value.count) failed; the drained instance served \(servedBeforeStop)")
    }

    /// GETs of a book the instance answered 200 (its /metrics).
    private func servedRequests(_ server: ServerProcess) throws -> Int {
        let metrics = try HTTPTestClient(port: try #require(server.operationsPort)).request("GET", "/metrics").text
        let prefix = #"lib_server_requests_total{route="/v1/books/{id}",method="GET",status="200"} "#
        guard let line = metrics.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? 0
    }
}
