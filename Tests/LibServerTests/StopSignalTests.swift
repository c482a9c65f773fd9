import Foundation
import Testing
import TestSupport

/// SIGTERM stops lib-server gracefully whenever it comes: even the instant
/// after `listening on` (issue 40: once lost, the server then ran on until
/// killed), and with a request in flight, which is answered first.
@Suite struct StopSignalTests {
    @Test func sigtermTheInstantAfterTheListeningLineEndsTheServer() throws {
        let dir = try TemporaryDirectory()
        let database = try TestDatabase.fresh(in: dir)
        for _ in 0..<10 {
            let server = try ServerProcess(database: database)
            kill(server.process.processIdentifier, SIGTERM)
            // A generous bound for a loaded machine; the lost signal never ended it (15 s measured).
            #expect(ChildProcessExit.wait(for: server.process, timeout: 5), "SIGTERM right after `listening on` was lost")
            #expect(server.stop() == 0)
        }
    }

    @Test func sigtermLetsARequestInFlightFinish() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerProcess(database: try TestDatabase.fresh(in: dir),
                                       extraArguments: ["--fault", "delay=600,path=/v1/me"])
        let client = try HTTPTestClient(port: server.port)
        try client.sendRaw(Array("GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        usleep(200_000)
        kill(server.process.processIdentifier, SIGTERM)
        let answer = try client.readResponse()
        #expect(answer.status == 401)
        #expect(answer.header("Connection") == "close")
        #expect(ChildProcessExit.wait(for: server.process, timeout: 5))
        #expect(server.stop() == 0)
    }
}
