import Foundation
import LibJSON
import Testing
import TestSupport

/// `GET /v1/changes?since=C&wait=S`: at once when there are changes;
/// otherwise held, holding no thread and no database connection, until a
/// change commits on this server or another one on the same database
/// (SQLite here; PostgreSQL's LISTEN/NOTIFY under `make test-postgres`), or
/// until the wait ends: an empty page with the same cursor.
@Suite struct ChangeFeedWaitTests {
    private static func page(_ answer: HTTPTestResponse) throws -> (ids: [String], next: String) {
        let json = try #require(answer.json, "not JSON: \(answer.status) \(answer.text)")
        let items = json["items"]?.arrayValue ?? []
        return (items.compactMap { $0["id"]?.stringValue }, json["next"]?.stringValue ?? "")
    }

    /// Sends a waiting feed request on its own connection; its answer is read later.
    private static func startWaiting(_ demo: DemoServer, token: String, since: String, wait: Int) throws -> HTTPTestClient {
        let client = try HTTPTestClient(port: demo.server.port, timeout: 30)
        try client.sendRaw(Array("GET /v1/changes?since=\(since)&wait=\(wait) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8))
        return client
    }

    @Test func aWaitingRequestAnswersWhenAWriteCommitsAndAtOnceWhenThereAreChangesAlready() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let now = try Self.page(try alice.get("/v1/changes")).next
        let waiting = try Self.startWaiting(demo, token: alice.token, since: now, wait: 30)
        usleep(300_000)
        #expect(try alice.put("b-7", #"{"title":"Dune Messiah"}"#, ifMatch: try alice.etag(of: "b-7")).status == 200)
        let answer = try waiting.readResponse()
        #expect(answer.status == 200)
        #expect(answer.header("Cache-Control") == "private, no-cache")
        let woken = try Self.page(answer)
        #expect(woken.ids == ["b-7"])
        // Changes there already: no wait at all (a 30 s wait would outlast the client's timeout).
        let at = try Self.page(try alice.get("/v1/changes?since=\(now)&wait=60"))
        #expect(at.ids == ["b-7"] && at.next == woken.next)
    }

    @Test func aWaitThatEndsWithoutAChangeIsAnEmptyPageWithTheSameCursor() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let now = try Self.page(try alice.get("/v1/changes")).next
        let answer = try alice.get("/v1/changes?since=\(now)&wait=1")
        #expect(answer.status == 200)
        let page = try Self.page(answer)
        #expect(page.ids.isEmpty && page.next == now)
        #expect(try alice.get("/v1/changes?since=\(now)&wait=61").status == 400)
        #expect(try alice.get("/v1/changes?since=\(now)&wait=soon").problemDetail
                == "wait must be a whole number of seconds from 0 to 60, not 'soon'")
        #expect(try alice.get("/v1/changes?since=\(now)&wait=0").status == 200)
        let capabilities = try #require(try demo.client().request("GET", "/v2/capabilities").json)
        #expect(capabilities["changes"]?["max_wait"]?.integerValue == 60)
    }

    @Test func aWriteOnAnotherServerOnTheSameDatabaseWakesTheWaitingRequests() throws {
        let first = try DemoServer()
        let second = try DemoServer(sharing: first)
        let alice = try first.signIn("alice")
        let bob = try second.signIn("bob")
        let now = try Self.page(try alice.get("/v1/changes")).next
        let waiting = try (0..<3).map { _ in try Self.startWaiting(first, token: alice.token, since: now, wait: 30) }
        usleep(300_000)
        #expect(try bob.put("b-3", #"{"title":"Changed elsewhere"}"#, ifMatch: try bob.etag(of: "b-3")).status == 200)
        for client in waiting {
            let answer = try client.readResponse()
            #expect(try Self.page(answer).ids == ["b-3"])
        }
    }

    /// A hundred waiting requests hold no database connection: the server's
    /// connections to PostgreSQL stay its pool and its one listener.
    @Test(.enabled(if: TestDatabase.isPostgres, "PostgreSQL only (make test-postgres)"))
    func aHundredWaitingRequestsHoldNoDatabaseConnection() throws {
        // All from 127.0.0.1: past the default per-peer cap of 64.
        let demo = try DemoServer(extraArguments: ["--max-connections-per-peer", "200"])
        let alice = try demo.signIn("alice")
        let now = try Self.page(try alice.get("/v1/changes")).next
        let database = demo.server.databasePath
        let others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        // The listener connects on a thread of its own, maybe after `listening on`.
        let listening = Date()
        while try TestDatabase.integer(database, "SELECT count(*) \(others) AND query LIKE 'LISTEN %'") == 0,
              Date().timeIntervalSince(listening) < 20 { usleep(50_000) }
        let before = try TestDatabase.integer(database, "SELECT count(*) \(others)")
        // Three users' (a user may hold 64 waiting requests).
        let tokens = [alice.token, try demo.signIn("bob").token, try demo.signIn("carol").token]
        let waiting = try (0..<100).map { try Self.startWaiting(demo, token: tokens[$0 % 3], since: now, wait: 30) }
        usleep(1_000_000)
        let during = try TestDatabase.integer(database, "SELECT count(*) \(others)")
        #expect(during == before, "database connections: \(before) before, \(during) with 100 waiting requests")
        #expect(try alice.put("b-9", #"{"title":"Ninth"}"#, ifMatch: try alice.etag(of: "b-9")).status == 200)
        for client in waiting { #expect(try Self.page(try client.readResponse()).ids == ["b-9"]) }
    }

    @Test func sigtermAnswersWaitingRequestsAtOnceWithTheirCursor() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let now = try Self.page(try alice.get("/v1/changes")).next
        let waiting = try Self.startWaiting(demo, token: alice.token, since: now, wait: 60)
        usleep(300_000)
        #expect(demo.server.stop() == 0)
        let answer = try waiting.readResponse()
        #expect(answer.status == 200 && answer.header("Connection") == "close")
        let page = try Self.page(answer)
        #expect(page.ids.isEmpty && page.next == now)
    }
}
