import LibBase
import LibClient
import LibJSON
import LibNet
import Testing

/// `ResourceFetcher`: a document, a listing page and a history, each
/// proven to be the library server's; anything else is a typed failure.
@Suite struct ResourceFetcherTests {
    let server = ScriptedTransport()
    var reads: ResourceFetcher { ResourceFetcher(api: ServerAPI(transport: server, origin: ScriptedTransport.origin, token: "t")) }
    let b7 = ResourcePath(collection: "books", id: "b-7")
    let books = ResourcePath(collection: "books", id: nil)

    /// The words of a not-the-library-server failure, or nil for any other outcome.
    func doubt(_ body: () throws -> Void) -> String? {
        guard case .transport(let failure)? = failure(body), case .notFromLibraryServer(let seen) = failure.kind else { return nil }
        return seen
    }

    func failure(_ body: () throws -> Void) -> RequestFailure? {
        do { try body() } catch { return error as? RequestFailure }
        return nil
    }

    // MARK: a document

    @Test func aValidBookWithItsETagIsFresh() throws {
        server.on("GET", "/v1/books/b-7", Reply.json(200, Reply.dune, [("ETag", Reply.duneETag)]))
        #expect(try reads.document(b7, cachedETag: nil) == .fresh(body: Reply.dune, etag: Reply.duneETag))
        #expect(server.requests.first?.headers["If-None-Match"] == nil)
    }

    @Test func aCachedCopyIsRevalidatedWithIfNoneMatch() throws {
        server.on("GET", "/v1/books/b-7", Reply.page(304, "application/json", ""))
        #expect(try reads.document(b7, cachedETag: Reply.duneETag) == .notModified)
        #expect(server.requests.first?.headers["If-None-Match"] == Reply.duneETag)
    }

    @Test func theServersNotFoundProblemMeansTheBookIsGone() throws {
        server.on("GET", "/v1/books/b-7", Reply.problem(404, "No book 'b-7'"))
        #expect(try reads.document(b7, cachedETag: nil) == .notFound)
    }

    @Test func aNotFoundPageThatIsNotAProblemIsNotTheServers() {
        server.on("GET", "/v1/books/b-7", Reply.page(404, "text/html", "<h1>Not Found</h1>"))
        #expect(doubt { _ = try reads.document(b7, cachedETag: nil) } == "404 text/html")
    }

    @Test(arguments: [
        (Reply.page(200, "text/html", "<html>Sign in</html>"), "200 text/html where a book was expected"),
        (Reply.json(200, Reply.dune), "200 JSON without an ETag"),
        (Reply.json(200, #"{"id":"b-8","title":"Other"}"#, [("ETag", "\"1\"")]), "200 with a document that is not the book b-7"),
        (Reply.json(200, #"{"id":"b-7","title":"Du"#, [("ETag", "\"1\"")]), "200 with cut or invalid JSON"),
        (Reply.json(200, #"{"id":"b-7","title":42}"#, [("ETag", "\"1\"")]), "200 with a document that is not a valid book"),
        (Reply.json(200, "", [("ETag", "\"1\"")]), "200 with no document"),
    ])
    func anAnswerThatDoesNotProveItIsTheServersIsADoubt(response: HTTPResponse, seen: String) {
        server.on("GET", "/v1/books/b-7", response)
        let said = doubt { _ = try reads.document(b7, cachedETag: nil) }
        #expect(said?.hasPrefix(seen) == true, "\(String(describing: said))")
    }

    @Test func aServerErrorIsATransportFailureWithItsRetryAfter() {
        server.on("GET", "/v1/books/b-7", Reply.problem(503, "The database is unavailable", [("Retry-After", "30")]))
        guard case .transport(let failure)? = failure({ _ = try reads.document(b7, cachedETag: nil) }),
              case .serverError(503, _, let retryAfter) = failure.kind else { Issue.record("not a 503"); return }
        #expect(retryAfter?.seconds == 30)
    }

    @Test func aRefusedTokenIsUnauthorized() {
        server.on("GET", "/v1/books/b-7", Reply.problem(401, "Sign in first"))
        guard case .transport(let failure)? = failure({ _ = try reads.document(b7, cachedETag: nil) }) else { Issue.record(); return }
        #expect(failure.kind == .unauthorized)
    }

    @Test func aRedirectIsNotFollowed() {
        server.on("GET", "/v1/books/b-7") { _ in HTTPResponse(status: 302, headers: ["Location": "http://portal.example/login"]) }
        guard case .transport(let failure)? = failure({ _ = try reads.document(b7, cachedETag: nil) }) else { Issue.record(); return }
        #expect(failure.kind == .redirected(status: 302, location: "http://portal.example/login"))
    }

    @Test func tooManyRequestsIsRateLimited() {
        server.on("GET", "/v1/books/b-7", Reply.problem(429, "Slow down", [("Retry-After", "5")]))
        guard case .transport(let failure)? = failure({ _ = try reads.document(b7, cachedETag: nil) }),
              case .rateLimited(let after) = failure.kind else { Issue.record(); return }
        #expect(after?.seconds == 5)
    }

    @Test func anotherProblemOfTheServersIsAProblemNamingTheRequest() {
        server.on("GET", "/v1/books/b-7", Reply.problem(400, "Bad id"))
        #expect(failure { _ = try reads.document(b7, cachedETag: nil) }
                == .problem(ServerProblem(request: "GET /v1/books/b-7", status: 400, detail: "Bad id")))
    }

    @Test func aTransportFailureComesBackAsItWas() {
        let refused = TransportFailure(kind: .connectionRefused, endpoint: ScriptedTransport.origin)
        server.on("GET", "/v1/books/b-7") { _ throws(TransportFailure) in throw refused }
        #expect(failure { _ = try reads.document(b7, cachedETag: nil) } == .transport(refused))
    }

    // MARK: a listing page

    static let listing = #"""
        {"items":[{"id":"b-1","title":"One","etag":"\"1\""},{"id":"b-2","title":"Two","etag":"\"2\""}],"next":"b-2","total":5}
        """#

    @Test func aListingPageHasItsMembersWithoutTheirETagMemberAndTheNextPlace() throws {
        server.on("GET", "/v1/books?limit=1000", Reply.json(200, Self.listing))
        let page = try #require(try reads.listingPage(books, after: nil))
        #expect(page.members.map { $0.path } == ["books/b-1", "books/b-2"])
        #expect(page.members.map { $0.etag } == ["\"1\"", "\"2\""])
        #expect(page.members.first?.body == #"{"id":"b-1","title":"One"}"#)
        #expect(page.next == "b-2" && page.total == 5)
        #expect(page.bytes == Self.listing.utf8.count)
    }

    @Test func theLastPageHasNoNext() throws {
        server.on("GET", "/v1/books?limit=1000&after=b-2", Reply.json(200, #"{"items":[{"id":"b-3","title":"Three","etag":"\"3\""}],"next":null}"#))
        let page = try #require(try reads.listingPage(books, after: "b-2"))
        #expect(page.next == nil && page.total == nil && page.members.count == 1)
    }

    @Test func aCollectionTheServerDoesNotHaveIsNil() throws {
        server.on("GET", "/v1/books", Reply.problem(404, "No such collection"))
        #expect(try reads.listingPage(books, after: nil) == nil)
    }

    @Test(arguments: [
        (#"{"items":[{"id":"b-1","title":"One"}],"next":null}"#, "a list with an item that is not a book with an ETag"),
        (#"{"items":[{"id":"../x","title":"One","etag":"\"1\""}],"next":null}"#, "a list with an item that is not a book with an ETag"),
        (#"{"items":[{"id":"b-1","title":7,"etag":"\"1\""}],"next":null}"#, "a list with a document that is not a valid book"),
        (#"{"items":[],"next":"b-1/../../x"}"#, "a listing whose next page is not a book id"),
        (#"{"books":[]}"#, "200 with JSON that is not a list of books"),
        (#"[1,2]"#, "200 with JSON that is not a list of books"),
        (#"{"items":["#, "200 with cut or invalid JSON"),
    ])
    func aListingThatIsNotTheLibraryServersIsADoubt(body: String, seen: String) {
        server.on("GET", "/v1/books", Reply.json(200, body))
        let said = doubt { _ = try reads.listingPage(books, after: nil) }
        #expect(said?.hasPrefix(seen) == true, "\(String(describing: said))")
    }

    @Test func aPageTooLargeToReadIsAskedForAgainInHalves() throws {
        server.on("GET", "/v1/books?limit=1000") { _ throws(TransportFailure) in
            throw TransportFailure(kind: .answerTooLarge(limit: 1024), endpoint: ScriptedTransport.origin)
        }
        server.on("GET", "/v1/books?limit=500", Reply.json(200, Self.listing))
        #expect(try reads.listingPage(books, after: nil)?.members.count == 2)
        #expect(server.targets == ["/v1/books?limit=1000", "/v1/books?limit=500"])
    }

    @Test func theNegativeTotalOfAListingIsNoTotal() throws {
        server.on("GET", "/v1/books", Reply.json(200, #"{"items":[],"next":null,"total":-4}"#))
        #expect(try reads.listingPage(books, after: nil)?.total == nil)
    }

    // MARK: a history

    @Test func aHistoryIsItsVersionsOldestFirst() throws {
        server.on("GET", "/v1/books/b-7/history", Reply.json(200, #"""
            {"items":[{"version":1,"etag":"\"1\"","updated_by":"demo","at":"2026-01-01T00:00:00Z","document":{"id":"b-7","title":"Dune"}},
                      {"version":2,"etag":"\"2\"","updated_by":"u-1","updated_by_name":"bob","at":"2026-01-02T00:00:00Z","document":null}]}
            """#))
        let versions = try #require(try reads.history(b7))
        #expect(versions.map(\.version) == [1, 2])
        #expect(versions.map(\.writer) == ["demo", "bob"])
        #expect(versions[1].document == nil && versions[0].document?["title"] == "Dune")
    }

    @Test func aBookTheServerNeverHadHasNoHistory() throws {
        server.on("GET", "/v1/books/b-7/history", Reply.problem(404, "No book 'b-7'"))
        #expect(try reads.history(b7) == nil)
    }

    @Test(arguments: [
        (#"{"items":[{"version":1,"etag":"\"1\""}]}"#, "a history with an entry that is not a version"),
        (#"{"items":[{"version":1,"etag":"\"1\"","updated_by":"demo","at":"x","document":"text"}]}"#, "a history with a version that is not a book"),
        (#"{"versions":[]}"#, "200 application/json where a book's history was expected"),
    ])
    func aHistoryThatIsNotTheLibraryServersIsADoubt(body: String, seen: String) {
        server.on("GET", "/v1/books/b-7/history", Reply.json(200, body))
        #expect(doubt { _ = try reads.history(b7) } == seen)
    }
}
