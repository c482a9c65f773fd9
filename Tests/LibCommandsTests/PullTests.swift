import LibBase
import LibJSON
import LibNet
import Testing

// `lib pull` in-process against a stub server: the requests it sends (the
// stub fails on any other, and on a stub never used), what it keeps, and
// what it refuses to keep.

private func signedInWithAListing(_ machine: Machine) {
    machine.signIn()
    machine.server.expectSchema()
    machine.server.on("GET", "/v1/changes") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
    machine.server.on("GET", "/v1/books?limit=1000") { _ in
        Answers.json(200, ["items": [
            ["id": "b-1", "title": "Pride and Prejudice", "etag": "\"1-a\""],
            ["id": "b-7", "title": "Dune", "author": "Frank Herbert", "etag": "\"1-b\""],
        ], "next": nil, "total": 2])
    }
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
}

@Test func aFirstPullListsThenASecondReadsTheFeedOnly() throws {
    let machine = try Machine()
    defer { machine.verify() }
    signedInWithAListing(machine)
    let first = machine.lib("pull")
    #expect(first.exitCode == .success, "\(first)")
    #expect(first.stdout == "Pulled books for \(machine.account()): listed 2 books.\n")
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in
        Answers.json(200, ["items": [
            ["id": "b-7", "etag": "\"2-c\"", "document": ["id": "b-7", "title": "Dune Messiah"]],
            ["id": "b-1", "etag": "\"2-d\"", "document": nil],
        ], "next": "e-3"])
    }
    let second = machine.lib("pull")
    #expect(second.exitCode == .success, "\(second)")
    #expect(second.stdout.hasSuffix(": 1 changed, 1 deleted.\n"), "\(second)")
    #expect(try machine.cached("books/b-7")?.etag == "\"2-c\"")
    #expect(try machine.cached("books/b-1") == nil)
    #expect(try machine.store().mirror(of: "books").cursor() == "e-3")
}

/// A feed page that is not the library server's (a portal's page, a
/// change that is not a book) is a temporary failure, and nothing of it is kept.
@Test(arguments: [
    Answers.json(200, ["items": [["id": "b-7", "etag": "\"2-c\"", "document": ["id": "b-8", "title": "Wrong"]]], "next": "e-3"]),
    Answers.json(200, ["items": [["id": "b-7", "document": nil]], "next": "e-3"]),
    Answers.json(200, ["items": []]),
    HTTPResponse(status: 200, reason: "OK", headers: HTTPHeaders([("Content-Type", "text/html")]), body: Array("<html>".utf8)),
])
func aFeedAnswerThatIsNotTheServersIsKeptNowhere(answer: HTTPResponse) throws {
    let machine = try Machine()
    defer { machine.verify() }
    signedInWithAListing(machine)
    #expect(machine.lib("pull").exitCode == .success)
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in answer }
    let pull = machine.lib("pull")
    #expect(pull.exitCode == .temporaryFailure, "\(pull)")
    #expect(pull.stderr.contains("library server"), "\(pull)")
    #expect(try machine.cached("books/b-7")?.etag == "\"1-b\"", "the copy stays as it was")
    #expect(try machine.store().mirror(of: "books").cursor() == "e-1", "the cursor did not move")
}

/// 410: the cursor is older than what the server keeps; lib lists again.
@Test func aGoneCursorListsAgain() throws {
    let machine = try Machine()
    defer { machine.verify() }
    signedInWithAListing(machine)
    #expect(machine.lib("pull").exitCode == .success)
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in Answers.problem(410, "That cursor is older than the changes this server keeps") }
    machine.server.on("GET", "/v1/changes") { _ in Answers.json(200, ["items": [], "next": "e-9"]) }
    machine.server.on("GET", "/v1/books?limit=1000") { _ in
        Answers.json(200, ["items": [["id": "b-7", "title": "Dune", "etag": "\"1-b\""]], "next": nil])
    }
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-9") { _ in Answers.json(200, ["items": [], "next": "e-9"]) }
    let pull = machine.lib("--json", "pull")
    #expect(pull.exitCode == .success, "\(pull)")
    let report = JSONValue.parsing(pull.stdout)?["accounts"]?.arrayValue?.first
    #expect(report?["listed"] == true && report?["deleted"] == 1 && report?["requests"] == 4, "\(pull)")
    #expect(try machine.cached("books/b-1") == nil)
    #expect(try machine.store().mirror(of: "books").cursor() == "e-9")
}

/// A server without a change feed (404 for it, as an older lib-server
/// answers): every pull lists, and the listing alone is the collection.
@Test func aServerWithoutAFeedIsListedEveryTime() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.expectSchema()
    for _ in 0..<2 {
        machine.server.on("GET", "/v1/changes") { _ in Answers.problem(404, "No such route: /v1/changes") }
        machine.server.on("GET", "/v1/books?limit=1000") { _ in
            Answers.json(200, ["items": [["id": "b-7", "title": "Dune", "etag": "\"1-b\""]], "next": nil])
        }
        let pull = machine.lib("--json", "pull")
        #expect(pull.exitCode == .success, "\(pull)")
        #expect(JSONValue.parsing(pull.stdout)?["accounts"]?.arrayValue?.first?["listed"] == true, "\(pull)")
    }
    #expect(try machine.store().mirror(of: "books").cursor() == nil)
    let offline = machine.lib("get", "--offline", "books")
    #expect(JSONValue.parsing(offline.stdout)?["items"]?.arrayValue?.count == 1, "\(offline)")
}

/// After a pull, an offline read counts the copy's age from that pull (it
/// read the feed up to then), not from the first fetch; and a book the pull
/// saw deleted reads as deleted on the server, not as not cached.
@Test func offlineReadsAfterAPullCountFromItAndKnowItsDeletions() throws {
    let machine = try Machine()
    defer { machine.verify() }
    signedInWithAListing(machine)
    #expect(machine.lib("pull").exitCode == .success)
    machine.clock.advance(by: 5 * 60)
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in
        Answers.json(200, ["items": [["id": "b-1", "etag": "\"2-d\"", "document": nil]], "next": "e-3"])
    }
    #expect(machine.lib("pull").stdout.hasSuffix(": 0 changed, 1 deleted.\n"))
    machine.clock.advance(by: 2)

    let dune = machine.lib("get", "books/b-7", "--offline")
    #expect(dune.exitCode == .success, "\(dune)")
    #expect(dune.stderr.hasPrefix("Showing the copy saved just now."), "\(dune)")
    let json = machine.lib("--json", "get", "books/b-7", "--offline")
    #expect(JSONValue.parsing(json.stdout)?["_cached"]?["age_seconds"] == .integer(2), "\(json)")

    let gone = machine.lib("get", "books/b-1", "--offline")
    #expect(gone.exitCode == .failure, "\(gone)")
    #expect(gone.stderr.hasPrefix("lib: books/b-1 was deleted on the server (the pull of 20"), "\(gone)")
    #expect(gone.stderr.hasSuffix(" saw it gone).\n"), "\(gone)")
}
