import Foundation
import LibJSON
import Testing
import TestSupport

/// `GET /v1/changes` (docs/PROTOCOL.md): changes after a cursor in commit
/// order, deletions as null documents, 410 for a cursor older than what the
/// server keeps, and never a skipped change with writers committing at once
/// on two servers (SQLite here, PostgreSQL under `make test-postgres`).
@Suite struct ChangeFeedTests {
    @Test func aWriteAfterTheCursorForNowComesInTheFeedAndThenNothingMore() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let now = try alice.changes(since: nil)
        #expect(now.items.isEmpty)
        let written = try alice.put("b-7", #"{"title":"Dune Messiah","author":"Frank Herbert"}"#, ifMatch: try alice.etag(of: "b-7"))
        #expect(written.status == 200)
        let page = try alice.changes(since: now.next)
        #expect(page.items.map(\.id) == ["b-7"])
        #expect(page.items.first?.etag == written.header("ETag"))
        #expect(page.items.first?.document?["title"]?.stringValue == "Dune Messiah")
        #expect(page.next != now.next)
        let after = try alice.changes(since: page.next)
        #expect(after.items.isEmpty && after.next == page.next, "nothing after the last change: the cursor stays")
    }

    @Test func aDeletionComesAsANullDocumentAndABookChangedTwiceComesOnceAtItsLatestPlace() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let start = try alice.changes(since: nil).next
        #expect(try alice.put("b-1", #"{"title":"First"}"#, ifMatch: try alice.etag(of: "b-1")).status == 200)
        #expect(try alice.delete("b-3", ifMatch: try alice.etag(of: "b-3")).status == 204)
        let again = try alice.put("b-1", #"{"title":"First, again"}"#, ifMatch: try alice.etag(of: "b-1"))
        let page = try alice.changes(since: start)
        #expect(page.items.map(\.id) == ["b-3", "b-1"])
        #expect(page.items[0].document == nil && page.items[0].deleted)
        #expect(page.items[1].etag == again.header("ETag"))
    }

    @Test func theWholeLibraryFollowsFromTheFeedsStartPageByPage() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let epoch = try #require(try alice.changes(since: nil).next.split(separator: "-").first)
        var cursor = "\(epoch)-0", ids: [String] = [], requests = 0
        while true {
            let page = try alice.changes(since: cursor, limit: 6)
            requests += 1
            ids += page.items.map(\.id)
            cursor = page.next
            if page.items.count < 6 { break }
        }
        #expect(ids == (1...20).map { "b-\($0)" }, "the demo books, in the order they were written")
        #expect(requests == 4)
        #expect(try alice.get("/v1/changes?since=\(cursor)&limit=0").status == 400)
        #expect(try alice.get("/v1/changes?since=nonsense").status == 400)
        #expect(try alice.get("/v1/changes").header("Cache-Control") == "private, no-cache")
    }

    /// A cursor from another database is 410 (a pruned deletion's is too:
    /// ServerClockTests, with the clock moved on past the retention).
    @Test func aCursorFromAnotherDatabaseIsGone() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let fresh = try alice.changes(since: nil).next
        #expect(try alice.changes(since: fresh).items.isEmpty, "a new cursor works")

        let other = try DemoServer()
        let bob = try other.signIn("bob")
        #expect(try bob.get("/v1/changes?since=\(fresh)").status == 410, "another database's cursor")
    }

    /// The trap: a position taken by a transaction that commits after a
    /// later one's. The first server holds its write's transaction open
    /// (after its change row is written) while the second server writes
    /// another book; a reader following the feed the whole time must see
    /// both, the held one first.
    @Test func theCursorNeverPassesATransactionHeldOpenWhileALaterOneCommits() throws {
        let first = try DemoServer(extraArguments: ["--fault", "hold-before-commit=1500,path=/v1/books/b-1"])
        let second = try DemoServer(sharing: first)
        let signedIn = try first.signIn("alice")
        // The writes wait on each other and on a loaded machine: more than the usual 10 s to answer.
        let alice = SignedInClient(client: try first.client(timeout: 60), token: signedIn.token, userID: signedIn.userID)
        let onSecond = SignedInClient(client: try second.client(timeout: 60), token: signedIn.token, userID: signedIn.userID)
        let reader = SignedInClient(client: try second.client(), token: signedIn.token, userID: signedIn.userID)
        let etags = (b1: try alice.etag(of: "b-1"), b2: try onSecond.etag(of: "b-2"))
        var cursor = try reader.changes(since: nil).next
        let statuses = Box<[String: Int]>()
        let group = DispatchGroup()
        OwnThread.start(in: group) {
            let status = (try? alice.put("b-1", #"{"title":"Held"}"#, ifMatch: etags.b1).status) ?? -1
            statuses.update { var s = $0 ?? [:]; s["b-1"] = status; return s }
        }
        usleep(300_000)
        OwnThread.start(in: group) {
            let status = (try? onSecond.put("b-2", #"{"title":"Later"}"#, ifMatch: etags.b2).status) ?? -1
            statuses.update { var s = $0 ?? [:]; s["b-2"] = status; return s }
        }
        var seen: [String] = []
        while group.wait(timeout: .now() + .milliseconds(40)) == .timedOut {
            let page = try reader.changes(since: cursor)
            seen += page.items.map(\.id)
            cursor = page.next
        }
        seen += try reader.changes(since: cursor).items.map(\.id)
        #expect(statuses.get() == ["b-1": 200, "b-2": 200])
        #expect(seen == ["b-1", "b-2"], "followed the feed and saw \(seen)")
    }

    /// Writers on two servers at once, a reader following the feed: at the
    /// end the reader knows every book's current ETag (a skipped change of
    /// a book nobody wrote again would leave an old one).
    @Test func aReaderFollowingTheFeedDuringConcurrentWritesOnTwoServersMissesNothing() throws {
        let pair = try ServerPair()
        let alice = try pair.first.signIn("alice")
        let reader = SignedInClient(client: try pair.second.client(), token: alice.token, userID: alice.userID)
        var cursor = try reader.changes(since: nil).next
        var known: [String: String] = [:]
        let group = DispatchGroup()
        let writers = try (0..<4).map { i in
            SignedInClient(client: try (i % 2 == 0 ? pair.first : pair.second).client(), token: alice.token, userID: alice.userID)
        }
        for (i, writer) in writers.enumerated() {
            OwnThread.start(in: group) {
                for n in 0..<25 {
                    let id = "c-\(i)-\(n)"
                    _ = try? writer.put(id, #"{"title":"Concurrent \#(i) \#(n)"}"#, create: true)
                }
            }
        }
        func read() throws {
            let page = try reader.changes(since: cursor, limit: 7)
            for item in page.items { known[item.id] = item.etag }
            cursor = page.next
        }
        while group.wait(timeout: .now() + .milliseconds(5)) == .timedOut { try read() }
        for _ in 0..<20 { try read() }
        for i in 0..<4 {
            for n in 0..<25 {
                let id = "c-\(i)-\(n)"
                #expect(known[id] == (try reader.get("/v1/books/\(id)").header("ETag")), "\(id) was skipped")
            }
        }
    }
}

/// One page of `GET /v1/changes`.
struct ChangePage {
    struct Item {
        let id: String
        let etag: String
        let document: JSONValue?
        var deleted: Bool { document == nil }
    }

    let items: [Item]
    let next: String
}

extension SignedInClient {
    func changes(since cursor: String?, limit: Int? = nil) throws -> ChangePage {
        var query: [String] = []
        if let cursor { query.append("since=\(cursor)") }
        if let limit { query.append("limit=\(limit)") }
        let answer = try get("/v1/changes" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        try #require(answer.status == 200, "GET /v1/changes: \(answer.status) \(answer.text)")
        let json = try #require(answer.json)
        let items = try (json["items"]?.arrayValue ?? []).map { item in
            let document = item["document"]
            return ChangePage.Item(id: try #require(item["id"]?.stringValue), etag: try #require(item["etag"]?.stringValue),
                                   document: document == .null ? nil : document)
        }
        return ChangePage(items: items, next: try #require(json["next"]?.stringValue))
    }
}
