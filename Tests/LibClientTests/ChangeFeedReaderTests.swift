import LibBase
import LibClient
import LibNet
import Testing

/// `ChangeFeedReader`: the cursor for "now", a page of changes, and what
/// the feed says about a cursor it no longer has or will not read.
@Suite struct ChangeFeedReaderTests {
    let server = ScriptedTransport()
    var feed: ChangeFeedReader { ChangeFeedReader(api: ServerAPI(transport: server, origin: ScriptedTransport.origin, token: "t")) }

    static let twoChanges = #"""
        {"items":[{"id":"b-7","etag":"\"2\"","document":{"id":"b-7","title":"Dune"}},{"id":"b-8","etag":"\"3\"","document":null}],"next":"c-9"}
        """#

    @Test func theCursorForNowIsTheFeedsNext() throws {
        server.on("GET", "/v1/changes", Reply.json(200, #"{"items":[],"next":"c-1"}"#))
        #expect(try feed.now().cursor == "c-1")
    }

    @Test func aServerWithoutAFeedHasNoCursor() throws {
        server.on("GET", "/v1/changes", Reply.problem(404, "Not found"))
        #expect(try feed.now().cursor == nil)
    }

    @Test func aPageHasEachChangeAndTheNextCursor() throws {
        server.on("GET", "/v1/changes?limit=1000&since=c-1", Reply.json(200, Self.twoChanges))
        guard case .page(let page, let more) = try feed.changes(since: "c-1") else { Issue.record(); return }
        #expect(page.changes == [FeedPage.Change(id: "b-7", etag: "\"2\"", body: #"{"id":"b-7","title":"Dune"}"#),
                                 FeedPage.Change(id: "b-8", etag: "\"3\"", body: nil)])
        #expect(page.next == "c-9" && !more)
    }

    @Test func aFullPageMayHaveMore() throws {
        server.on("GET", "/v1/changes?limit=1000", Reply.problem(500, "x"))
        server.on("GET", "/v1/changes?limit=1000&since=c-1") { _ throws(TransportFailure) in
            throw TransportFailure(kind: .answerTooLarge(limit: 10), endpoint: ScriptedTransport.origin)
        }
        server.on("GET", "/v1/changes?limit=500&since=c-1") { _ throws(TransportFailure) in
            throw TransportFailure(kind: .answerTooLarge(limit: 10), endpoint: ScriptedTransport.origin)
        }
        server.on("GET", "/v1/changes?limit=250&since=c-1", Reply.json(200, #"{"items":[],"next":"c-2"}"#))
        guard case .page(let page, let more) = try feed.changes(since: "c-1") else { Issue.record(); return }
        #expect(page.next == "c-2" && !more)
        #expect(server.targets.map { $0.split(separator: "&")[0] } == ["/v1/changes?limit=1000", "/v1/changes?limit=500", "/v1/changes?limit=250"])
    }

    /// A page the server ended at its byte budget has fewer items than the
    /// limit and more after it: `more` says so, not the count.
    @Test(arguments: [("true", true), ("false", false)])
    func thePagesMoreIsBelievedOverItsCount(more: String, expected: Bool) throws {
        server.on("GET", "/v1/changes?limit=1000&since=c-1", Reply.json(200, #"{"items":[],"next":"c-2","more":\#(more)}"#))
        guard case .page(_, let said) = try feed.changes(since: "c-1") else { Issue.record(); return }
        #expect(said == expected)
    }

    @Test func aCursorTheServerNoLongerHasIsGone() throws {
        server.on("GET", "/v1/changes", Reply.problem(410, "Too old"))
        #expect(try feed.changes(since: "c-1") == .gone)
    }

    @Test func aCursorTheServerWillNotReadIsRefusedWithItsReason() throws {
        server.on("GET", "/v1/changes", Reply.problem(400, "the cursor is from another database"))
        #expect(try feed.changes(since: "c-1") == .refused("the cursor is from another database"))
    }

    @Test func aCursorIsSentEscaped() throws {
        server.on("GET", "/v1/changes", Reply.json(200, #"{"items":[],"next":"c-2"}"#))
        _ = try feed.changes(since: "a b/c&d")
        #expect(server.targets == ["/v1/changes?limit=1000&since=a%20b%2Fc%26d"])
    }

    @Test func aCursorLongerThanLibKeepsIsADoubt() {
        let long = String(repeating: "x", count: 5000)
        server.on("GET", "/v1/changes", Reply.json(200, #"{"items":[],"next":"\#(long)"}"#))
        #expect(doubt { _ = try feed.changes(since: "c-1") } == "a cursor of 5000 bytes, longer than the 4096 bytes lib keeps")
    }

    @Test(arguments: [
        (#"{"items":[{"id":"../etc","etag":"\"1\"","document":null}],"next":"c-2"}"#, "a list of changes with an item that is not a book's change"),
        (#"{"items":[{"id":"b-7","document":null}],"next":"c-2"}"#, "a list of changes with an item that is not a book's change"),
        (#"{"items":[{"id":"b-7","etag":"\"1\"","document":{"id":"b-8","title":"x"}}],"next":"c-2"}"#, "a change with a document that is not the book b-7"),
        (#"{"items":[],"next":""}"#, "200 with JSON that is not a list of changes"),
        (#"{"items":[]}"#, "200 with JSON that is not a list of changes"),
        (#"{"items":[],"next":"c-2","more":"yes"}"#, "a list of changes whose 'more' is not true or false"),
    ])
    func aFeedPageThatIsNotTheLibraryServersIsADoubt(body: String, seen: String) {
        server.on("GET", "/v1/changes", Reply.json(200, body))
        #expect(doubt { _ = try feed.changes(since: "c-1") } == seen)
    }

    @Test func aPortalsPageInsteadOfTheFeedIsADoubt() {
        server.on("GET", "/v1/changes", Reply.page(200, "text/html", "<html>Welcome to the hotel</html>"))
        #expect(doubt { _ = try feed.changes(since: "c-1") } == "200 text/html where a list of changes was expected")
    }

    @Test func a410ToTheCursorForNowIsNotTheServers() {
        server.on("GET", "/v1/changes", Reply.problem(410, "Gone"))
        #expect(doubt { _ = try feed.now() } == "410 for a request without a cursor")
    }
}
