import Foundation
import Testing
import TestSupport

/// A database the previous lib-server made (Fixtures/: main's code before
/// issue 25 gave both stores one migration runner) opens with this one:
/// the recorded migration names are still this code's, nothing is applied
/// again, and the users, books and history are there and writable.
@Suite struct StoreUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The fixture of the store this suite runs on, copied or restored into a new database.
    static func oldDatabase(in directory: TemporaryDirectory) throws -> String {
        let location = try TestDatabase.fresh(in: directory)
        if TestDatabase.isPostgres {
            let restore = try CommandRunner.run("/usr/lib/postgresql/15/bin/psql", [
                "-q", "-v", "ON_ERROR_STOP=1", location, "-f", fixtures.appendingPathComponent("server-before-issue-25-postgres.sql").path,
            ])
            try #require(restore.status == 0, "\(restore)")
        } else {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("server-before-issue-25.sqlite").path, toPath: location)
        }
        return location
    }

    @Test func aDatabaseTheOldServerMadeOpensAndKeepsItsData() throws {
        let directory = try TemporaryDirectory("store-upgrade")
        let location = try Self.oldDatabase(in: directory)
        let migrations = "SELECT name, applied_at FROM schema_migrations ORDER BY name"
        let before = try TestDatabase.query(location, migrations)
        #expect(before.split(separator: "\n").map { $0.split(separator: "|")[0] } == (TestDatabase.isPostgres
            ? ["001-library"] : ["001-users-and-sessions", "002-books-and-history", "003-idempotency", "004-idempotency-claims"]))

        let server = try ServerProcess(database: location, demo: false)
        // Only the change feed's migration (issue 27), the sessions' use
        // (issue 47), the changes' device (issue 49) and the device grants (issue 50) are new; the old ones neither ran nor were recorded again.
        let upgraded = try TestDatabase.query(location, migrations)
        let beforeLines = before.split(separator: "\n"), upgradedLines = upgraded.split(separator: "\n")
        #expect(Array(upgradedLines.prefix(beforeLines.count)) == beforeLines, "a migration ran again, or was recorded again")
        #expect(upgradedLines.dropFirst(beforeLines.count).map { $0.split(separator: "|")[0] }
                == (TestDatabase.isPostgres ? ["002-change-feed", "003-session-use", "004-change-device", "005-device-grants"]
                    : ["005-change-feed", "006-session-use", "007-change-device", "008-device-grants"]))
        let client = try HTTPTestClient(port: server.port)
        func signIn(_ user: String, _ password: String) throws -> String {
            let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                            body: #"{"username":"\#(user)","password":"\#(password)"}"#)
            try #require(answer.status == 201, "\(user): \(answer.status) \(answer.text)")
            return try #require(answer.json?["token"]?.stringValue)
        }
        let alice = try signIn("alice", "alice-demo")
        let dora = try signIn("dora", "dora-secret")
        let auth = [("Authorization", "Bearer \(alice)")]

        let written = try client.request("GET", "/v1/books/b-7", headers: auth)
        #expect(written.status == 200 && written.json?["title"] == "Written by main", "\(written.text)")
        #expect(try client.request("GET", "/v1/books/b-8", headers: auth).status == 404)
        #expect(try client.request("GET", "/v1/books/b-9", headers: auth).json?["title"] != nil)
        let history = try client.request("GET", "/v1/books/b-7/history", headers: auth)
        #expect(history.json?["items"]?.arrayValue?.count == 2, "\(history.text)")

        // The new code writes on it (claiming a key in the old idempotency
        // table); dora, added by the old `user add`, is a librarian. (The
        // fixture's own keys are not replayed: keys are kept 24 hours.)
        let etag = try #require(written.header("ETag"))
        let put = try client.request("PUT", "/v1/books/b-7", headers: [
            ("Authorization", "Bearer \(dora)"), ("If-Match", etag), ("Idempotency-Key", "after-upgrade"), ("Content-Type", "application/json"),
        ], body: #"{"id":"b-7","title":"Written after the upgrade"}"#)
        #expect(put.status == 200, "\(put.text)")
        // The books the old server wrote are in the change feed from its start; the new write after them.
        let now = try #require(client.request("GET", "/v1/changes", headers: auth).json?["next"]?.stringValue)
        let start = String(now.prefix { $0 != "-" }) + "-0"
        let feed = try client.request("GET", "/v1/changes?since=\(start)&limit=1000", headers: auth)
        let ids = feed.json?["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(ids.last == "b-7" && ids.contains("b-9") && ids.contains("b-8"), "\(feed.text)")
        #expect(feed.json?["items"]?.arrayValue?.first { $0["id"] == "b-8" }?["document"] == .null, "b-8, deleted before the upgrade")
        #expect(server.stop() == 0)
        #expect(try TestDatabase.query(location, migrations) == upgraded)
    }
}
