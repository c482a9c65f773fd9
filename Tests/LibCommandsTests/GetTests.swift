import LibBase
import LibJSON
import LibNet
@testable import LibCommands
import Testing

// `lib get`: the fresh document, a 304 revalidation, the cached copy after a
// failure (labelled on standard error), --offline, --fresh.

private func refused(_ origin: ServerOrigin) -> StubServer.Answer {
    { _ throws(TransportFailure) in throw TransportFailure(kind: .connectionRefused, endpoint: origin) }
}

@Test func getPrintsTheFreshDocumentAndCachesItWithItsETag() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.expectSchema()
    machine.server.expectBook("b-7", Fixtures.dune, etag: Fixtures.duneETag)
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune, "\(run)")
    #expect(run.stderr == "")
    let request = try #require(machine.server.requests("GET", "/v1/books/b-7").first)
    #expect(request.headers["If-None-Match"] == nil)
    #expect(request.headers["Authorization"] == "Bearer lbt_alice")
    let cached = try #require(try machine.cached("books/b-7"))
    #expect(cached.etag == Fixtures.duneETag)
    #expect(cached.fetchedAt == machine.clock.now.secondsSince1970)
}

@Test func getRevalidatesTheCachedCopyWithIfNoneMatch() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.clock.advance(by: 60)
    machine.server.on("GET", "/v1/books/b-7") { request in
        request.headers["If-None-Match"] == Fixtures.duneETag
            ? Answers.notModified(etag: Fixtures.duneETag) : Answers.problem(400, "expected If-None-Match")
    }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr == "")
    #expect(try machine.cached("books/b-7")?.validatedAt == machine.clock.now.secondsSince1970)
}

@Test func getFallsBackToTheCachedCopyWhenTheServerIsDownAndSaysHowOld() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.clock.advance(by: 3 * 3600)
    // Three hours on, the schema is stale too: it is refreshed only after a
    // read that succeeds, so the failed read is all there is.
    machine.server.on("GET", "/v1/books/b-7", answer: refused(machine.server.origin))
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr == "Showing the copy from 3 hours ago. Couldn't reach 127.0.0.1:8080: connection refused — the server may be down.\n",
            "\(run)")
}

@Test func getFallsBackOnA503AndNamesTheStatus() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("GET", "/v1/books/b-7") { _ in
        Answers.problem(503, "The database is unavailable", headers: [("Retry-After", "30")])
    }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr.contains("127.0.0.1 answered 503 Service Unavailable: try again in 30 s."), "\(run)")
}

@Test func getFallsBackWhenAPortalAnswersInsteadOfTheServer() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("GET", "/v1/books/b-7") { _ in
        HTTPResponse(status: 200, reason: "OK", headers: HTTPHeaders([("Content-Type", "text/html")]),
                     body: Array("<html>Sign in to the Wi-Fi</html>".utf8))
    }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr.contains("did not come from the library server"), "\(run)")
    #expect(run.stderr.contains("200 text/html"), "\(run)")
    // The portal's page never replaces the copy.
    #expect(try machine.cached("books/b-7")?.etag == Fixtures.duneETag)
}

@Test func getFreshFailsWithSeventyFiveRatherThanShowTheCopy() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("GET", "/v1/books/b-7", answer: refused(machine.server.origin))
    let run = machine.lib("get", "books/b-7", "--fresh")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stdout == "")
    #expect(run.stderr == "lib: Couldn't reach 127.0.0.1:8080: connection refused — the server may be down.\n", "\(run)")
}

@Test func getWithNothingCachedAndTheServerDownExitsSeventyFive() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    // No schema stored yet: its fetch goes first, and its failure is the read's (one, not two).
    machine.server.on("GET", "/v1/schemas/book", answer: refused(machine.server.origin))
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stdout == "")
    #expect(machine.server.requests("GET", "/v1/books/b-7").isEmpty)
}

@Test func getOfflineTouchesNoNetworkAndLabelsTheAge() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.clock.advance(by: 2 * 86_400)
    let before = machine.server.received.count
    let run = machine.lib("get", "--offline", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr == "Showing the copy from 2 days ago.\n", "\(run)")
    #expect(machine.server.received.count == before)
}

@Test func getOfflineOfSomethingNeverFetchedFails() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let run = machine.lib("get", "books/b-9", "--offline")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr == "lib: books/b-9 is not cached for alice@127.0.0.1:8080: run `lib get books/b-9` while online\n", "\(run)")
    #expect(machine.server.received.count == 2)  // the sign-in's
}

@Test func getOfABookTheServerNoLongerHasForgetsTheCopy() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("GET", "/v1/books/b-7") { _ in Answers.problem(404, "No book 'b-7'") }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr == "lib: books/b-7 is not on 127.0.0.1:8080; the cached copy was forgotten\n", "\(run)")
    #expect(try machine.cached("books/b-7") == nil)
}

@Test func getWithAnExpiredSessionAndNoCopyExitsFour() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.on("GET", "/v1/schemas/book") { _ in Answers.problem(401, "Sign in first") }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stderr.contains("Your session for alice@127.0.0.1:8080 has expired: run `lib login`."), "\(run)")
}

@Test func getOfACollectionListsAndCachesEveryMember() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.expectSchema()
    // The first time, the feed's cursor for "now", then every page, then the feed from the cursor.
    machine.server.on("GET", "/v1/changes") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
    machine.server.on("GET", "/v1/books?limit=1000") { _ in
        Answers.json(200, ["items": [
            ["id": "b-1", "title": "Pride and Prejudice", "etag": "\"1-87911d46\""],
            ["id": "b-7", "title": "Dune", "author": "Frank Herbert", "etag": .string(Fixtures.duneETag)],
        ], "next": nil])
    }
    let run = machine.lib("get", "books")
    #expect(run.exitCode == .success, "\(run)")
    let items = try #require(JSONValue.parsing(run.stdout)?["items"]?.arrayValue, "\(run)")
    #expect(items.compactMap { $0["id"]?.stringValue } == ["b-1", "b-7"])
    // Each member is cached as a document of its own, without the listing's etag member.
    let cached = try #require(try machine.cached("books/b-7"))
    #expect(cached.etag == Fixtures.duneETag)
    #expect(cached.json?["etag"] == nil)
    #expect(machine.lib("get", "--offline", "books/b-1").exitCode == .success)
}

@Test func getShowsPendingWritesAppliedAndSaysTheyArePending() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=9").exitCode == .success)
    let run = machine.lib("get", "--offline", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout)?["copies"] == 9, "\(run)")
    #expect(run.stderr == "Showing the copy saved just now.\n1 change saved on this device, not yet pushed\n", "\(run)")
}

@Test func getWithoutAnAccountSaysToSignIn() throws {
    let machine = try Machine()
    defer { machine.verify() }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stderr.contains("lib login"), "\(run)")
    #expect(machine.server.received.isEmpty)
}

/// A path that swallows every packet: the request's own budget runs out.
private func blackHoled(_ origin: ServerOrigin) -> StubServer.Answer {
    { request throws(TransportFailure) in
        throw TransportFailure(kind: .connectTimeout, endpoint: origin, timeout: request.timeout)
    }
}

@Test func aStaleSchemaNeverSpendsTheReadsBudgetOnABlackHoledPath() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    // Past the refresh interval: the schema check is due, but only after a read that succeeds.
    machine.clock.advance(by: BookSchemaRefresh.maximumAge + 60)
    machine.server.on("GET", "/v1/books/b-7", answer: blackHoled(machine.server.origin))
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout) == Fixtures.dune)
    #expect(run.stderr == "Showing the copy from 11 minutes ago. Couldn't reach 127.0.0.1:8080: timed out after 2 s.\n", "\(run)")
    let read = try #require(machine.server.requests("GET", "/v1/books/b-7").last)
    #expect(read.timeout.map { $0 > .milliseconds(1900) } == true, "the read had the whole budget: \(String(describing: read.timeout))")
    #expect(machine.server.requests("GET", "/v1/schemas/book").count == 1, "only the sign-in's")
}

@Test func withoutACopyABlackHoledPathCostsOneTimeoutNotTwo() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.on("GET", "/v1/schemas/book", answer: blackHoled(machine.server.origin))
    let run = machine.lib("get", "books/b-7", "--timeout", "3")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr == "lib: Couldn't reach 127.0.0.1:8080: timed out after 3 s.\n", "\(run)")
    #expect(machine.server.requests("GET", "/v1/books/b-7").isEmpty, "the read is not tried after the same path timed out")
}

@Test func aStaleSchemaIsRefreshedAfterAReadThatSucceeds() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.clock.advance(by: BookSchemaRefresh.maximumAge + 60)
    machine.server.on("GET", "/v1/books/b-7") { _ in Answers.notModified(etag: Fixtures.duneETag) }
    machine.server.on("GET", "/v1/schemas/book") { request in Answers.notModified(etag: request.headers["If-None-Match"] ?? "") }
    let run = machine.lib("get", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    let refresh = try #require(machine.server.requests("GET", "/v1/schemas/book").last)
    #expect(refresh.timeout.map { $0 <= .seconds(BookSchemaRefresh.budgetAfterRead) } == true, "its own small budget")
    #expect(machine.server.received.last?.url.hasSuffix("/v1/schemas/book") == true, "after the read")
}
