import Foundation
import LibJSON
import Testing
import TestSupport

/// Two lib-servers behind nginx on one database; the one serving a write
/// is killed (SIGKILL) while its transaction is open, the key claimed
/// (issue 38). The retry with the same key through nginx, which now meets
/// the other instance, is applied at once (it met 409 for the claim's
/// whole 30 s lease before), and exactly once.
@Suite(.enabled(if: NginxReverseProxy.isInstalled, "needs nginx (scripts/install-deps.sh)"))
struct ServerKilledHoldingKeyTests {
    @Test func onPostgreSQLTheRetryThroughTheOtherInstanceIsAppliedOnceWithinSeconds() throws {
        let cluster = try PostgresCluster()
        try retryAfterTheHolderIsKilled(database: cluster.uri) {
            // The claim committed, the write's transaction open and waiting.
            try TestDatabase.query(cluster.uri, "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
    }

    /// The same with two servers on one SQLite file: the claim names the
    /// process that made it, and a dead process holds nothing.
    @Test func onSQLiteTheRetryThroughTheOtherInstanceIsAppliedOnceWithinSeconds() throws {
        let directory = try TemporaryDirectory("lib-server-killed-holding")
        let database = try TestDatabase.fresh(in: directory)
        try retryAfterTheHolderIsKilled(database: database) {
            try TestDatabase.query(database, "SELECT count(*) FROM idempotency WHERE key = 'held-key' AND status = 0")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
    }

    private func retryAfterTheHolderIsKilled(database: String, holds: () throws -> Bool) throws {
        let holding = try ServerProcess(database: database, extraArguments: ["--fault", "hold-before-commit=600000,method=PUT,times=1"])
        let other = try ServerProcess(database: database, demo: false)
        let nginx = try NginxReverseProxy(upstreamPorts: [holding.port], backupPorts: [other.port])
        let direct = try HTTPTestClient(port: other.port)
        let token = try #require(try DatabaseRestartTests.token(direct, "alice"))
        let etag = try #require(try direct.request("GET", "/v1/books/b-7", headers: [("Authorization", "Bearer \(token)")]).header("ETag"))
        let write = TLSWrite(nginx: nginx, token: token, etag: etag, key: "held-key", body: #"{"title":"Written once"}"#)

        let first = try write.start()
        try #require(try ProcessState.waitUntil(timeout: 30, holds), "the first instance never held the key")
        let claims = try TestDatabase.query(database, "SELECT status FROM idempotency WHERE key = 'held-key'")
        #expect(claims.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the key is claimed: \(claims)")

        kill(holding.process.processIdentifier, SIGKILL)
        let killedAt = Date()
        first.waitUntilExit()
        var answers = [try write.answer(of: first)]
        // nginx may already have passed the PUT (idempotent) on to the other
        // instance; otherwise the client retries, as lib does.
        while answers.last?.status != 200, answers.count < 100, Date().timeIntervalSince(killedAt) < 30 {
            usleep(200_000)
            answers.append(try write.answer(of: try write.start()))
        }
        let appliedAfter = Date().timeIntervalSince(killedAt)
        #expect(answers.last?.status == 200, "\(answers.map(\.status))")
        #expect(answers.allSatisfy { [200, 409, 502, 503].contains($0.status) }, "\(answers.map(\.status))")
        #expect(appliedAfter < 5, "applied \(appliedAfter) s after the kill (answers \(answers.map(\.status)))")
        #expect(answers.filter { $0.status == 200 && !$0.replayed }.count == 1, "\(answers)")
        let again = try write.answer(of: try write.start())
        #expect(again.status == 200 && again.replayed, "\(again)")
        let versions = try TestDatabase.query(database, "SELECT count(*) FROM history WHERE book_id = 'b-7'")
        #expect(versions.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "the demo's version and the one write: \(versions)")
        #expect(nginx.accessLog.contains("PUT /v1/books/b-7 200"), "\(nginx.accessLog)")
        print("\(database.hasPrefix("postgresql:") ? "PostgreSQL" : "SQLite"): applied \(appliedAfter) s after the kill; answers \(answers)")
    }
}

/// One PUT of book b-7 through nginx's TLS, with curl.
private struct TLSWrite {
    let nginx: NginxReverseProxy
    let token: String
    let etag: String
    let key: String
    let body: String

    struct Answer: CustomStringConvertible {
        let status: Int
        let replayed: Bool
        var description: String { "\(status)\(replayed ? " (replayed)" : "")" }
    }

    private var headersFile: String { nginx.directory.file("answer-headers") }

    func start() throws -> Process {
        try? FileManager.default.removeItem(atPath: headersFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "-D", headersFile, "--cacert", nginx.authority.certificate,
                             "-X", "PUT", "-H", "Authorization: Bearer \(token)", "-H", "If-Match: \(etag)",
                             "-H", "Idempotency-Key: \(key)", "-H", "Content-Type: application/json",
                             "--data-binary", body, "\(nginx.url)/v1/books/b-7"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func answer(of process: Process) throws -> Answer {
        process.waitUntilExit()
        let head = (try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? ""
        let lines = head.split(whereSeparator: \.isNewline)
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? -1
        let replayed = lines.contains { $0.lowercased().hasPrefix("idempotent-replayed: true") }
        return Answer(status: status, replayed: replayed)
    }
}
