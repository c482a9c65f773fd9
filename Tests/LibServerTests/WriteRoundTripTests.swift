import Foundation
import LibHTTPServer
import LibJSON
@testable import LibServer
import Testing
import TestSupport

/// What a write costs lib-server in round trips to PostgreSQL (issue 50),
/// as the connection counts them (`PostgresConnection.roundTrips`: each
/// time it sent statements and waited for their answers), on a server
/// with one connection: a v1 PUT in four (the token's session, the key's
/// claim, and the write's two), a batch in a number that does not grow
/// with its items. Under scripts/with-postgres.sh (`make test-postgres`).
@Suite(.enabled(if: TestDatabase.isPostgres, "counts PostgreSQL's round trips: runs under scripts/with-postgres.sh"))
struct WriteRoundTripTests {
    let directory: TemporaryDirectory
    let connection: PostgresConnection
    let service: LibraryService
    let token: String

    init() throws {
        directory = try TemporaryDirectory("write-round-trips")
        connection = try PostgresConnection(uri: try TestDatabase.fresh(in: directory))
        _ = try ServerMigrator(for: .postgresql).migrate(connection, location: "test")
        let store = ServerStore(first: connection, others: [])
        try DemoData.install(in: store, at: ServerClock.system.now())
        service = LibraryService(store: store)
        let login = try service.answer("POST", "/v1/sessions", body: #"{"username":"alice","password":"alice-demo"}"#)
        token = try #require(try JSONParser.parse(login.body)["token"]?.stringValue)
    }

    /// The request's answer and the round trips it cost.
    func counted(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") throws -> (HTTPResponse, Int) {
        let before = connection.roundTrips
        let answer = try service.answer(method, path, token: token, headers: headers, body: body)
        return (answer, connection.roundTrips - before)
    }

    func batch(_ items: [JSONValue]) throws -> ([JSONValue], Int) {
        let (answer, trips) = try counted("POST", "/v2/writes", body: JSONValue.object(JSONObject([("writes", .array(items))])).serialized())
        return (try JSONParser.parse(answer.body)["results"]?.arrayValue ?? [], trips)
    }

    @Test func aV1PutCostsFourRoundTripsAndItsReplayThree() throws {
        let etag = try #require(try service.answer("GET", "/v1/books/b-7", token: token).headers["ETag"])
        let headers = [("If-Match", etag), ("Idempotency-Key", "round-trips-1")]
        let (put, trips) = try counted("PUT", "/v1/books/b-7", headers: headers, body: #"{"title":"Dune"}"#)
        #expect(put.status == 200)
        #expect(trips == 4, "the session, the key's claim, the write's two")
        let (replay, replayTrips) = try counted("PUT", "/v1/books/b-7", headers: headers, body: #"{"title":"Dune"}"#)
        #expect(replay.status == 200 && replay.headers["Idempotent-Replayed"] == "true")
        #expect(replayTrips == 3, "the session, the claim that finds the answer, and letting go of the key's lock")
        let (deleted, deleteTrips) = try counted("DELETE", "/v1/books/b-7",
                                                 headers: [("If-Match", put.headers["ETag"] ?? ""), ("Idempotency-Key", "round-trips-2")])
        #expect(deleted.status == 204)
        #expect(deleteTrips == 4)
    }

    /// A signed-in read sends the token's check with its own first
    /// statement: one round trip for a book or a history, two for a page
    /// (its sizes, then the rows that fit); and no answer, not even a 404,
    /// without a live token.
    @Test func aSignedInReadSendsTheTokensCheckWithItsFirstStatement() throws {
        let (book, bookTrips) = try counted("GET", "/v1/books/b-7")
        #expect(book.status == 200 && bookTrips == 1)
        let (page, pageTrips) = try counted("GET", "/v1/books?after=b-3&limit=5")
        #expect(page.status == 200 && pageTrips == 2)
        let (history, historyTrips) = try counted("GET", "/v1/books/b-7/history")
        #expect(history.status == 200 && historyTrips == 1)
        let (me, meTrips) = try counted("GET", "/v1/me")
        #expect(me.status == 200 && meTrips == 1)
        #expect(try JSONParser.parse(me.body)["username"]?.stringValue == "alice")
        let (missing, missingTrips) = try counted("GET", "/v1/books/b-404")
        #expect(missing.status == 404 && missingTrips == 1)
        for target in ["/v1/books/b-7", "/v1/books/b-404", "/v1/me"] {
            let stranger = try service.answer("GET", target, token: "lbt_not-a-token")
            #expect(stranger.status == 401, "\(target): \(stranger.status)")
        }
    }

    /// Creates, their replay, then updates of every book: each batch costs
    /// as many round trips for 1,000 items as for 10.
    @Test func aBatchOfAThousandCostsTheRoundTripsOfABatchOfTen() throws {
        func creates(_ count: Int, _ prefix: String) -> [JSONValue] {
            (1...count).map { WriteBatchProtocolTests.create("\(prefix)-\($0)", "\(prefix)-\($0)", ["title": .string("Book \($0)")]) }
        }
        let (ten, tenTrips) = try batch(creates(10, "ten"))
        #expect(ten.count == 10 && ten.allSatisfy { $0["status"] == 201 })
        #expect(tenTrips == 3, "the session, the write's two")
        let (thousand, thousandTrips) = try batch(creates(1_000, "k"))
        #expect(thousand.count == 1_000 && thousand.allSatisfy { $0["status"] == 201 })
        #expect(thousandTrips == tenTrips)

        let (replayed, replayTrips) = try batch(creates(1_000, "k"))
        #expect(replayed.allSatisfy { $0["status"] == 201 && $0["replayed"] == true })
        // The mass-change guard reads the books of a batch over its allowance
        // (20 books) to see what it would delete or blank: a replay, which
        // reads no book otherwise, pays that one read; still the same count
        // for 21 items as for 1,000.
        #expect(replayTrips == tenTrips + 1)

        let updates = thousand.enumerated().map { index, result in
            WriteBatchProtocolTests.update("u-\(index + 1)", "k-\(index + 1)", ifMatch: result["etag"]?.stringValue ?? "",
                                           set: ["copies": 2], seen: [:])
        }
        let (updated, updateTrips) = try batch(updates)
        #expect(updated.allSatisfy { $0["status"] == 200 }, "\(updated.first { $0["status"] != 200 } ?? .null)")
        #expect(updateTrips == tenTrips)
    }
}
