import Foundation
import LibHTTPServer
import LibJSON
import LibStore
@testable import LibServer
import Synchronization
import Testing
import TestSupport

/// lib-server dates sessions, writes and the history with its clock: a
/// test moves the clock on instead of sleeping.
@Suite struct ServerClockTests {
    final class MovableClock: Sendable {
        private let seconds = Mutex(1_800_000_000.0)
        var now: Double { seconds.withLock { $0 } }
        func advance(by delta: Double) { seconds.withLock { $0 += delta } }
        var serverClock: ServerClock { ServerClock { [self] in now } }
    }

    let directory: TemporaryDirectory
    let clock = MovableClock()
    let service: LibraryService

    init() throws {
        directory = try TemporaryDirectory("server-clock")
        let store = try ServerDatabase.open(directory.file("server.sqlite"))
        try DemoData.install(in: store, at: ServerClock.system.now())
        service = LibraryService(store: store, sessionLifetime: 3600, changeRetention: 600, clock: clock.serverClock)
    }

    func send(_ method: String, _ path: String, token: String? = nil, headers: [(String, String)] = [], body: String = "") throws -> HTTPResponse {
        try service.answer(method, path, token: token, headers: headers, body: body)
    }

    func signIn() throws -> String {
        let answer = try send("POST", "/v1/sessions", body: #"{"username":"alice","password":"alice-demo"}"#)
        return try #require(try JSONParser.parse(answer.body)["token"]?.stringValue)
    }

    /// A read answered again from memory (as an event loop does) ends at
    /// a commit of any other connection, and never keeps a session's use
    /// from being written down.
    @Test func aReadAnsweredFromMemoryEndsAtACommitAndTheSessionsUseIsStillWrittenDown() throws {
        let token = try signIn()
        let first = try send("GET", "/v1/books/b-7", token: token)
        let given = service.recentReads.given
        #expect(try send("GET", "/v1/books/b-7", token: token).body == first.body)
        #expect(service.recentReads.given == given + 1, "the same request, nothing committed: answered from memory")
        // Another connection, as another lib-server on the file would.
        let other = try Database(path: directory.file("server.sqlite"))
        try other.execute("UPDATE books SET document = replace(document, 'Dune', 'Changed elsewhere') WHERE id = 'b-7'")
        #expect(String(decoding: try send("GET", "/v1/books/b-7", token: token).body, as: UTF8.self).contains("Changed elsewhere"))
        try other.execute("UPDATE sessions SET revoked_at = 1")
        #expect(try send("GET", "/v1/books/b-7", token: token).status == 401, "revoked elsewhere: at once")
        #expect(try send("GET", "/v1/books/b-404", token: token).status == 401, "not even a 404 without a live token")
        let second = try signIn()
        _ = try send("GET", "/v1/books/b-7", token: second)
        _ = try send("GET", "/v1/books/b-7", token: second)
        // Past the renewal step (180 s for a one-hour lifetime) the read goes to the database, which writes the use down.
        clock.advance(by: 181)
        #expect(try send("GET", "/v1/books/b-7", token: second).status == 200)
        #expect(try other.scalar("SELECT max(used_at) FROM sessions WHERE revoked_at IS NULL")?.real == clock.now)
    }

    @Test func aSessionUnusedForLongerThanItsLifetimeExpires() throws {
        let token = try signIn()
        clock.advance(by: 3600)
        #expect(try send("GET", "/v1/me", token: token).status == 200)
        clock.advance(by: 3601)
        let expired = try send("GET", "/v1/me", token: token)
        #expect(expired.status == 401)
        #expect(try JSONParser.parse(expired.body)["detail"]?.stringValue == "The session expired (unused for more than 3600 s): sign in again")
    }

    /// Sessions slide (issue 47): a token used about once an hour, reads
    /// and writes alike, works for a year under a one-hour lifetime.
    @Test func aSessionInUseLastsPastItsLifetime() throws {
        let token = try signIn()
        var etag = try #require(try send("GET", "/v1/books/b-7", token: token).headers["ETag"])
        for hour in 1...(24 * 365) {
            clock.advance(by: 3500)
            if hour % 24 == 0 {
                let put = try send("PUT", "/v1/books/b-7", token: token, headers: [("If-Match", etag), ("Idempotency-Key", "k-\(hour)")],
                                   body: #"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":\#(hour)}"#)
                #expect(put.status == 200, "hour \(hour)")
                guard let next = put.headers["ETag"] else { return }
                etag = next
            } else {
                let me = try send("GET", "/v1/me", token: token)
                #expect(me.status == 200, "hour \(hour)")
                if me.status != 200 { return }
            }
        }
    }

    @Test func aSessionInUseIsStillRevokedAtOnce() throws {
        let token = try signIn()
        clock.advance(by: 3000)
        #expect(try send("GET", "/v1/me", token: token).status == 200)
        #expect(try send("DELETE", "/v1/sessions/current", token: token).status == 204)
        let revoked = try send("GET", "/v1/me", token: token)
        #expect(revoked.status == 401)
        #expect(try JSONParser.parse(revoked.body)["detail"]?.stringValue == "The token is not valid (unknown or revoked): sign in again")
    }

    @Test func aWriteIsDatedInTheHistoryByTheClock() throws {
        let token = try signIn()
        let book = try send("GET", "/v1/books/b-7", token: token)
        let etag = try #require(book.headers["ETag"])
        clock.advance(by: 1800)
        let put = try send("PUT", "/v1/books/b-7", token: token, headers: [("If-Match", etag), ("Idempotency-Key", "k-1")],
                           body: #"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":4}"#)
        #expect(put.status == 200)
        let history = try JSONParser.parse(try send("GET", "/v1/books/b-7/history", token: token).body)
        #expect(history["items"]?.arrayValue?.last?["at"]?.stringValue == Timestamp.string(from: Date(timeIntervalSince1970: clock.now)))
    }

    @Test func aDeletionOlderThanTheRetentionIsPrunedAndACursorFromBeforeItIsGone() throws {
        let token = try signIn()
        let cursor = { (since: String?) throws -> (status: Int, next: String?) in
            let answer = try send("GET", "/v1/changes" + (since.map { "?since=" + $0 } ?? ""), token: token)
            return (answer.status, try? JSONParser.parse(answer.body)["next"]?.stringValue)
        }
        let before = try #require(try cursor(nil).next)
        let b3 = try #require(try send("GET", "/v1/books/b-3", token: token).headers["ETag"])
        #expect(try send("DELETE", "/v1/books/b-3", token: token, headers: [("If-Match", b3), ("Idempotency-Key", "d-1")]).status == 204)
        let b4 = try #require(try send("GET", "/v1/books/b-4", token: token).headers["ETag"])
        let write = { (key: String, etag: String) throws -> Int in
            try send("PUT", "/v1/books/b-4", token: token, headers: [("If-Match", etag), ("Idempotency-Key", key)],
                     body: #"{"id":"b-4","title":"Four"}"#).status
        }
        clock.advance(by: 599)
        #expect(try write("p-1", b4) == 200, "a write within the retention prunes nothing")
        #expect(try cursor(before).status == 200)
        clock.advance(by: 2)
        let b4again = try #require(try send("GET", "/v1/books/b-4", token: token).headers["ETag"])
        #expect(try write("p-2", b4again) == 200, "this write prunes the deletion, now 601 s old")
        #expect(try cursor(before).status == 410)
    }
}
