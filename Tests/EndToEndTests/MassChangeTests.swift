import Foundation
import LibJSON
import Testing
import TestSupport

/// The mass-change guard end to end (issue 48), against a real lib-server
/// with the demo's 20 books: a push that deletes or blanks more than
/// max(N, p%) of the books is refused before anything is sent (exit 5),
/// `--force` sends it, and the server holds each v2 request to its own
/// guard. The demo library is small, so the guards here are 5 books, 20 %.
@Suite struct MassChangeTests {
    static let clientGuard = ["LIB_GUARD": "5,20"]
    static let serverGuard = ["--guard-books", "5", "--guard-percent", "20"]

    /// Live books in the server's database.
    func liveBooks(_ server: ServerProcess) throws -> Int {
        let result = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath, "SELECT count(*) FROM books WHERE document IS NOT NULL"])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// alice signed in, the whole library pulled.
    func pulledLibrary(serverArguments: [String] = serverGuard) throws -> (LibHarness, ServerProcess) {
        let server = try startDemoServer(arguments: serverArguments)
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let pull = try alice.lib("pull")
        #expect(pull.status == 0, "\(pull)")
        return (alice, server)
    }

    func delete(_ books: ClosedRange<Int>, _ alice: LibHarness) throws {
        for n in books {
            let edit = try alice.lib("edit", "books/b-\(n)", "--delete")
            #expect(edit.status == 0, "\(edit)")
        }
    }

    @Test func aScriptThatDeletesEveryCachedBookIsRefusedUntilForced() throws {
        let (alice, server) = try pulledLibrary()
        try delete(1...20, alice)

        let dryRun = try alice.lib(["push", "--dry-run"], environment: Self.clientGuard)
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(dryRun.stdout.contains("They delete or blank fields of 20 of 20 books in the offline library: "
            + "the mass-change guard (at most 5) would refuse the push, exit 5 (lib push --force if you mean it)."), "\(dryRun)")
        let dryJSON = try alice.lib(["--json", "push", "--dry-run"], environment: Self.clientGuard)
        let change = try JSONParser.parse(dryJSON.stdout)["accounts"]?.arrayValue?.first?["mass_change"]
        #expect(change?["destructive_books"]?.integerValue == 20 && change?["books"]?.integerValue == 20
            && change?["allowed"]?.integerValue == 5 && change?["refused"]?.boolValue == true, "\(dryJSON)")

        // As from cron: quiet, and still said, because a person is needed.
        let push = try alice.lib(["-q", "push", "--wait", "5"], environment: Self.clientGuard)
        #expect(push.status == 5, "\(push)")
        #expect(push.stderr.contains("Not pushing: these writes would delete or blank fields of 20 of 20 books (the guard allows 5). "
            + "Nothing was sent. If you mean it: lib push --force"), "\(push)")
        #expect(try liveBooks(server) == 20)

        let status = try alice.lib("status")
        #expect(status.stdout.contains("Push refused by the mass-change guard: 20 books (run lib push --force if you mean it)."), "\(status)")
        let statusJSON = try JSONParser.parse(try alice.lib("--json", "status").stdout).arrayValue?.first
        #expect(statusJSON?["mass_change_refused"]?["destructive_books"]?.integerValue == 20, "\(String(describing: statusJSON))")
        #expect(statusJSON?["mass_change_refused"]?["by"]?.stringValue == "client")
        let doctor = try alice.lib("doctor")
        #expect(doctor.stdout.contains("push refused by the mass-change guard: 20 books"), "\(doctor)")

        let json = try alice.lib(["--json", "push"], environment: Self.clientGuard)
        #expect(json.status == 5, "\(json)")
        let refused = try JSONParser.parse(json.stdout)["accounts"]?.arrayValue?.first?["refused"]
        #expect(refused?["destructive_books"]?.integerValue == 20 && refused?["allowed"]?.integerValue == 5, "\(json)")

        let forced = try alice.lib(["push", "--force"], environment: Self.clientGuard)
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdout.contains("Pushed 20 writes"), "\(forced)")
        #expect(try liveBooks(server) == 0)
        #expect(!(try alice.lib("status").stdout.contains("mass-change")))
        let after = try JSONParser.parse(try alice.lib("--json", "status").stdout).arrayValue?.first
        #expect(after?["mass_change_refused"]?.isNull == true)
    }

    @Test func aSmallLibraryCanLoseABookOrBeEmptiedUnderTheDefaults() throws {
        let (alice, server) = try pulledLibrary(serverArguments: [])
        try delete(4...20, alice)
        // 17 of 20 is within the default guard (20 books).
        #expect(try alice.lib("push").status == 0)
        #expect(try liveBooks(server) == 3)
        try delete(1...1, alice)
        let one = try alice.lib("push")
        #expect(one.status == 0, "\(one)")
        #expect(try liveBooks(server) == 2)
        try delete(2...3, alice)
        let rest = try alice.lib("push")
        #expect(rest.status == 0, "\(rest)")
        #expect(try liveBooks(server) == 0)
    }

    @Test func theServersGuardRefusesWhatThisDeviceLetsThrough() throws {
        let (alice, server) = try pulledLibrary()
        // Blanking a field counts as deleting the book does.
        for n in 1...4 {
            #expect(try alice.lib("edit", "books/b-\(n)", "tags:=[]").status == 0)
        }
        try delete(5...8, alice)
        let push = try alice.lib(["push"], environment: ["LIB_GUARD": "off"])
        #expect(push.status == 5, "\(push)")
        #expect(push.stderr.contains("Not pushing: these writes would delete or blank fields of 8 of the server's 20 books "
            + "(the server's guard allows 5). Nothing was sent. If you mean it: lib push --force"), "\(push)")
        #expect(try liveBooks(server) == 20)
        #expect(try alice.lib("status").stdout.contains("Push refused by the mass-change guard: 8 books"))
        // What the server refused is still pending and sent whole with --force.
        let forced = try alice.lib(["push", "--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(try liveBooks(server) == 16, "\(forced)")
        let b1 = try alice.lib("get", "--fresh", "books/b-1")
        #expect(b1.stdout.contains("\"tags\": []"), "\(b1)")
    }

    @Test func aRawBatchOfTooManyDeletesIsAProblemAndAppliesNothing() throws {
        let (alice, server) = try pulledLibrary()
        let token = try keyringToken(server: server, user: "alice")
        let client = try HTTPTestClient(port: server.port)
        var writes: [JSONValue] = []
        for n in 1...6 {
            let answer = try client.request("GET", "/v1/books/b-\(n)", headers: [("Authorization", "Bearer \(token)")])
            let etag = try #require(answer.header("ETag"))
            writes.append(["key": .string("k-mass-\(n)"), "path": .string("books/b-\(n)"), "op": "delete", "if_match": .string(etag)])
        }
        let body = JSONValue.object(JSONObject([("writes", .array(writes))])).serialized()
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        let refused = try client.request("POST", "/v2/writes", headers: headers, body: body)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.header("Content-Type") == "application/problem+json")
        let problem = try JSONParser.parse(refused.text)
        #expect(problem["type"]?.stringValue == "https://lib.example/problems/mass-change")
        #expect(problem["destructive_books"]?.integerValue == 6 && problem["books"]?.integerValue == 20
            && problem["allowed"]?.integerValue == 5, "\(refused.text)")
        #expect(problem["detail"]?.stringValue?.contains("Lib-Confirm-Mass-Change: 1") == true)
        #expect(try liveBooks(server) == 20)

        let confirmed = try client.request("POST", "/v2/writes", headers: headers + [("Lib-Confirm-Mass-Change", "1")], body: body)
        #expect(confirmed.status == 200, "\(confirmed.text)")
        let statuses = try JSONParser.parse(confirmed.text)["results"]?.arrayValue?.compactMap { $0["status"]?.integerValue }
        #expect(statuses?.count == 6 && statuses?.allSatisfy { (200...299).contains($0) } == true, "\(confirmed.text)")
        #expect(try liveBooks(server) == 14)
        // Replayed by key: the books are gone, so nothing is destructive any more.
        #expect(try client.request("POST", "/v2/writes", headers: headers, body: body).status == 200)
        _ = alice
    }
}
