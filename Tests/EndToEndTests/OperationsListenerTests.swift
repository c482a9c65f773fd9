import Foundation
import LibJSON
import Testing
import TestSupport

/// lib-server's operations listener (`--ops-listen`, issue 50): /livez,
/// /readyz, /metrics in Prometheus text (which promtool accepts), and the
/// drain (POST /drain, SIGUSR1) that fails readiness while requests in
/// flight finish and keep-alive clients are let go.
@Suite struct OperationsListenerTests {
    static let promtool = "/usr/bin/promtool"

    @Test func livezReadyzAndMetricsAnswerOnTheirOwnPort() throws {
        let server = try startDemoServer(arguments: ["--ops-listen", "127.0.0.1:0"])
        let opsPort = try #require(server.operationsPort)
        #expect(opsPort != server.port)
        let ops = try HTTPTestClient(port: opsPort)
        let livez = try ops.request("GET", "/livez")
        #expect(livez.status == 200 && livez.text == "ok\n", "\(livez.status) \(livez.text)")
        let readyz = try ops.request("GET", "/readyz")
        #expect(readyz.status == 200 && readyz.text == "ready\n", "\(readyz.status) \(readyz.text)")
        let wrongMethod = try ops.request("POST", "/readyz")
        #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "GET, HEAD")
        #expect(try ops.request("GET", "/v1/books").status == 404, "the library's routes are not on the operations port")
        #expect(try HTTPTestClient(port: server.port).request("GET", "/livez").status == 404,
                "nor the operations endpoints on the library's port")

        // A read, a miss, a write: counted by route pattern, never by the path sent.
        let client = try HTTPTestClient(port: server.port)
        let token = try #require(try DatabaseRestartTests.token(client, "alice"))
        let auth = ("Authorization", "Bearer \(token)")
        let read = try client.request("GET", "/v1/books/b-7", headers: [auth])
        #expect(read.status == 200)
        #expect(try client.request("GET", "/v1/books/no-such-book", headers: [auth]).status == 404)
        #expect(try client.request("GET", "/nowhere/alice").status == 404)
        let write = try client.request("PUT", "/v1/books/b-7", headers: [
            auth, ("If-Match", try #require(read.header("ETag"))), ("Idempotency-Key", "ops-metrics-1"),
            ("Content-Type", "application/json")], body: #"{"title":"Counted"}"#)
        #expect(write.status == 200, "\(write.status) \(write.text)")

        let scrape = try ops.request("GET", "/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let metrics = scrape.text
        for line in [
            #"lib_server_requests_total{route="/v1/books/{id}",method="GET",status="200"} 1"#,
            #"lib_server_requests_total{route="/v1/books/{id}",method="GET",status="404"} 1"#,
            #"lib_server_requests_total{route="/v1/books/{id}",method="PUT",status="200"} 1"#,
            #"lib_server_requests_total{route="/v1/sessions",method="POST",status="201"} 1"#,
            // /livez asked of the library's port, and /nowhere/alice.
            #"lib_server_requests_total{route="unmatched",method="GET",status="404"} 2"#,
            #"lib_server_request_duration_seconds_count{route="/v1/books/{id}",method="GET"} 2"#,
            #"lib_server_writes_total{outcome="applied"} 1"#,
            #"lib_server_writes_total{outcome="conflict"} 0"#,
            "lib_server_feed_waiters 0",
            "lib_server_db_pool_size 4",
            "lib_server_db_pool_in_use 0",
            "lib_server_draining 0",
            #"lib_server_build_info{version="0.1.0"} 1"#,
        ] {
            #expect(metrics.contains(line + "\n"), "missing \(line) in:\n\(metrics)")
        }
        #expect(metrics.contains("lib_server_connections_open "), "\(metrics)")
        #expect(metrics.contains("process_start_time_seconds "), "\(metrics)")
        // No book id, user name, user id or token in any label.
        let userID = try serverUserID(server, "alice")
        for secret in ["b-7", "no-such-book", "alice", "nowhere", userID, token] {
            #expect(!metrics.contains(secret), "\(secret) in the metrics:\n\(metrics)")
        }
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool),
                     "promtool is missing: scripts/install-deps.sh installs it (Debian's prometheus package)")
        let check = try CommandRunner.run(Self.promtool, ["check", "metrics"], stdin: metrics)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty,
                "promtool check metrics: \(check.status) \(check.stdout) \(check.stderr)")
    }

    @Test func postDrainFailsReadinessWhileARequestInFlightFinishes() throws {
        try drainWhileASlowReadIsInFlight { server, ops in
            let drained = try ops.request("POST", "/drain")
            #expect(drained.status == 200, "\(drained.status) \(drained.text)")
        }
    }

    @Test func sigusr1Drains() throws {
        try drainWhileASlowReadIsInFlight { server, _ in
            kill(server.process.processIdentifier, SIGUSR1)
        }
    }

    /// Starts a read the server holds for 1.5 s (a fault), drains with
    /// `drain` while it is in flight, and checks what the drain promises.
    private func drainWhileASlowReadIsInFlight(_ drain: (ServerProcess, HTTPTestClient) throws -> Void) throws {
        let logs = try TemporaryDirectory("lib-ops-drain")
        let log = logs.file("stderr")
        FileManager.default.createFile(atPath: log, contents: nil)
        let directory = try TemporaryDirectory("lib-e2e-server")
        let server = try ServerProcess(database: directory.file("server.sqlite"),
                                       extraArguments: ["--ops-listen", "127.0.0.1:0", "--verbose", "--fault", "delay=1500,path=/v1/books/b-2"],
                                       standardError: try FileHandle(forWritingTo: URL(fileURLWithPath: log)), owning: directory)
        let ops = try HTTPTestClient(port: try #require(server.operationsPort))
        let token = try #require(try DatabaseRestartTests.token(try HTTPTestClient(port: server.port), "alice"))
        let auth = ("Authorization", "Bearer \(token)")
        let keptAlive = try HTTPTestClient(port: server.port)
        #expect(try keptAlive.request("GET", "/v1/books/b-3", headers: [auth]).header("Connection") == nil)
        #expect(try ops.request("GET", "/readyz").status == 200)

        let slow = try HTTPTestClient(port: server.port)
        let slowAnswer = Shared<HTTPTestResponse?>(nil)
        let finished = Flag()
        Thread {
            slowAnswer.value = try? slow.request("GET", "/v1/books/b-2", headers: [auth])
            finished.set()
        }.start()
        // Inside the fault's delay: the server says so on its log.
        #expect(try ProcessState.waitUntil(timeout: 10) {
            try String(contentsOfFile: log, encoding: .utf8).contains("fault delay=1500,path=/v1/books/b-2 fires")
        })
        try drain(server, ops)

        #expect(try ProcessState.waitUntil(timeout: 10) { try ops.request("GET", "/readyz").status == 503 })
        let readyz = try ops.request("GET", "/readyz")
        #expect(readyz.status == 503 && readyz.text == "not ready: draining\n", "\(readyz.status) \(readyz.text)")
        #expect(!finished.isSet, "the drain came while the slow read was in flight")
        // Still served, but the kept-alive connection is let go after its answer.
        let during = try keptAlive.request("GET", "/v1/books/b-3", headers: [auth])
        #expect(during.status == 200 && during.header("Connection") == "close", "\(during.status) \(during.headers)")
        #expect(keptAlive.isClosedByPeer())
        #expect(try HTTPTestClient(port: server.port).request("GET", "/v1/books/b-4", headers: [auth]).status == 200)
        #expect(try ProcessState.waitUntil(timeout: 10) { finished.isSet })
        #expect(slowAnswer.value?.status == 200, "the read in flight finished: \(String(describing: slowAnswer.value?.status))")
        #expect(try ops.request("GET", "/metrics").text.contains("lib_server_draining 1\n"))
        #expect(server.stop() == 0)
    }

    /// A database that does not take writes (another process holds SQLite's
    /// write lock) is not ready, saying so; once it lets go, ready again.
    @Test func aDatabaseThatTakesNoWritesIsNotReady() throws {
        let server = try startDemoServer(arguments: ["--ops-listen", "127.0.0.1:0"])
        let ops = try HTTPTestClient(port: try #require(server.operationsPort))
        #expect(try ops.request("GET", "/readyz").status == 200)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [server.databasePath]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() } }
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\n".utf8))

        #expect(try ProcessState.waitUntil(timeout: 10) { try ops.request("GET", "/readyz").status == 503 })
        let refused = try ops.request("GET", "/readyz")
        #expect(refused.status == 503 && refused.text.hasPrefix("not ready: database"), "\(refused.status) \(refused.text)")
        #expect(try ops.request("GET", "/livez").status == 200, "the process still answers")

        input.fileHandleForWriting.write(Data("ROLLBACK;\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(try ProcessState.waitUntil(timeout: 15) { try ops.request("GET", "/readyz").status == 200 })
    }

    @Test func theOperationsListenerIsOffUnlessAsked() throws {
        let server = try startDemoServer()
        #expect(server.operationsPort == nil)
        let usage = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--db", "/nonexistent/x.sqlite", "--ops-listen", "localhost"])
        #expect(usage.status == 2 && usage.stderr.contains("--ops-listen wants HOST:PORT"), "\(usage)")
    }
}
