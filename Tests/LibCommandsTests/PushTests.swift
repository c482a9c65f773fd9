import LibBase
import LibJSON
import LibNet
import LibSync
import Testing

// `lib push`: what the server receives (body, If-Match, Idempotency-Key),
// each outcome's exit code and words, and what the outbox and cache hold after.

/// Signs in, caches b-7 and changes its copies to 3: one write pending.
private func machineWithOneWrite() throws -> Machine {
    let machine = try Machine()
    machine.signInWithDune()
    let edit = machine.lib("edit", "books/b-7", "copies:=3")
    #expect(edit.exitCode == .success, "\(edit)")
    return machine
}

private let duneWithThree: JSONValue = ["id": "b-7", "title": "Dune", "author": "Frank Herbert", "year": 1965, "copies": 3]

@Test func pushSendsTheWriteWithItsBaseETagAndKeyAndCachesTheAnswer() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    let key = try #require(try machine.outbox().first?.idempotencyKey)
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-c0ffee\"") }
    let run = machine.lib("push")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Pushed 1 write to 127.0.0.1:8080 as alice@127.0.0.1:8080.\n")
    #expect(run.stderr == "")
    let put = try #require(machine.server.requests("PUT", "/v1/books/b-7").first)
    #expect(put.headers["If-Match"] == Fixtures.duneETag)
    #expect(put.headers["Idempotency-Key"] == key)
    #expect(put.headers["Content-Type"] == "application/json")
    #expect(put.headers["Authorization"] == "Bearer lbt_alice")
    #expect(JSONValue.parsing(put.body) == duneWithThree)
    #expect(try machine.outbox().isEmpty)
    let cached = try #require(try machine.cached("books/b-7"))
    #expect(cached.etag == "\"2-c0ffee\"")
    #expect(cached.json == duneWithThree)
}

@Test func pushOfACreateSendsIfNoneMatchStar() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.lib("edit", "books/b-21", "--create", "title=Emma")
    machine.server.on("PUT", "/v1/books/b-21") { request in Answers.stored(request, etag: "\"1-e\"", status: 201) }
    let run = machine.lib("push")
    #expect(run.exitCode == .success, "\(run)")
    let put = try #require(machine.server.requests("PUT", "/v1/books/b-21").first)
    #expect(put.headers["If-None-Match"] == "*")
    #expect(put.headers["If-Match"] == nil)
    #expect(try machine.cached("books/b-21")?.etag == "\"1-e\"")
}

@Test func pushOfADeleteSendsDeleteWithIfMatchAndForgetsTheCopy() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "--delete")
    machine.server.on("DELETE", "/v1/books/b-7") { request in Answers.deleted(request) }
    let run = machine.lib("push")
    #expect(run.exitCode == .success, "\(run)")
    #expect(machine.server.requests("DELETE", "/v1/books/b-7").first?.headers["If-Match"] == Fixtures.duneETag)
    #expect(try machine.outbox().isEmpty)
    #expect(try machine.cached("books/b-7") == nil)
}

@Test func pushWithNothingPendingSendsNothing() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let run = machine.lib("push")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Nothing to push for alice@127.0.0.1:8080.\n")
    #expect(machine.server.received.count == 2)  // the sign-in's
}

@Test func pushOnA412KeepsTheWriteAsAConflictWithTheServersVersion() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.exitCode.rawValue == 3)
    #expect(run.stdout == "Nothing pushed to 127.0.0.1:8080 as alice@127.0.0.1:8080.\n", "\(run)")
    #expect(run.stderr == "lib: 1 conflict: books/b-7 — run `lib resolve books/b-7`.\n", "\(run)")
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .conflict)
    #expect(item.theirsETag == Fixtures.duneTheirsETag)
    #expect(item.theirs.map { JSONValue.object($0) } == Fixtures.duneTheirs)
}

@Test func pushWhenTheServerRefusesTheConnectionKeepsTheWriteUnsent() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stdout == "")
    #expect(run.stderr == "lib: Couldn't reach 127.0.0.1:8080: connection refused — the server may be down. 1 write is saved on this device.\n",
            "\(run)")
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .pending)
    #expect(!item.mayBeOnServer, "a refused connection never sent the write")
    #expect(machine.lib("status", "--short").stdout.contains("M  books/b-7"))
}

@Test func pushOnA503WithRetryAfterKeepsTheWriteAndSaysWhenToRetry() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(503, "The database is unavailable", headers: [("Retry-After", "30")]))
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr == "lib: 127.0.0.1 answered 503 Service Unavailable: try again in 30 s. 1 write is saved on this device.\n", "\(run)")
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .pending)
    #expect(item.mayBeOnServer, "a 503 came from the server: the write may have reached it")
}

@Test func pushOfAnAnswerWithoutTheIdempotencyKeyKeepsTheWritePending() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    // A 200 with the book and an ETag, but not this write's key: not the server's proof.
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.json(200, (try? JSONParser.parse(request.body)) ?? .null, [("ETag", "\"2-x\"")])
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr.contains("did not come from the library server"), "\(run)")
    #expect(run.stderr.contains("without this write's Idempotency-Key"), "\(run)")
    #expect(try machine.outbox().first?.status == .pending)
    #expect(try machine.cached("books/b-7")?.etag == Fixtures.duneETag, "nothing unproven is cached")
}

@Test func pushOfAPortalsHTMLPageKeepsTheWritePending() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { _ in
        HTTPResponse(status: 200, reason: "OK", headers: HTTPHeaders([("Content-Type", "text/html")]),
                     body: Array("<html><form>Accept the terms</form></html>".utf8))
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr.contains("200 text/html without this write's Idempotency-Key"), "\(run)")
    #expect(run.stderr.hasSuffix("1 write is saved on this device.\n"), "\(run)")
    #expect(try machine.outbox().count == 1)
}

@Test func pushRetriesALostAnswerWithTheSameKey() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionLost, endpoint: origin)
    }
    let first = machine.lib("push")
    #expect(first.exitCode == .temporaryFailure, "\(first)")
    #expect(first.stderr.contains("The connection to 127.0.0.1 was lost."), "\(first)")
    #expect(try machine.outbox().first?.mayBeOnServer == true)

    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-r\"") }
    let second = machine.lib("push")
    #expect(second.exitCode == .success, "\(second)")
    let keys = machine.server.requests("PUT", "/v1/books/b-7").map { $0.headers["Idempotency-Key"] }
    #expect(keys.count == 2 && keys[0] == keys[1], "a retry is the same write: the same key")
}

@Test func pushOnA401StopsExitsFourAndKeepsTheWrites() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { _ in Answers.problem(401, "Sign in first") }
    let run = machine.lib("push")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stderr == "lib: Your session for alice@127.0.0.1:8080 has expired: run `lib login http://127.0.0.1:8080`. 1 write is saved on this device.\n",
            "\(run)")
    #expect(try machine.outbox().first?.status == .pending)
}

@Test func pushOfAWriteTheServerRejectsMarksItRejectedWithTheProblem() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(422, "The book is invalid: 'copies' must be 5 or less"))
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.stderr.contains("1 rejected write: books/b-7 — run `lib resolve books/b-7`."), "\(run)")
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .rejected)
    #expect(item.problem == "The book is invalid: 'copies' must be 5 or less")
}

@Test func pushSendsLaterWritesOfOtherBooksPastAConflict() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.lib("edit", "books/b-21", "--create", "title=Emma")
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
    }
    machine.server.on("PUT", "/v1/books/b-21") { request in Answers.stored(request, etag: "\"1-e\"", status: 201) }
    let run = machine.lib("push")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.stdout == "Pushed 1 write to 127.0.0.1:8080 as alice@127.0.0.1:8080.\n", "\(run)")
    #expect(machine.server.received.suffix(2).map(\.url) == [machine.server.url + "/v1/books/b-7", machine.server.url + "/v1/books/b-21"],
            "in the order they were saved")
    #expect(try machine.outbox().map(\.path) == ["books/b-7"])
}

@Test func pushJSONReportsEachWriteAndTheCounts() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-j\"") }
    let run = machine.lib("--json", "push")
    #expect(run.exitCode == .success, "\(run)")
    let document = try #require(JSONValue.parsing(run.stdout), "\(run)")
    #expect(document["exit_code"] == 0, "\(run)")
    let account = try #require(document["accounts"]?.arrayValue?.first, "\(run)")
    #expect(account["account"] == "alice@127.0.0.1:8080" && account["pushed"] == 1 && account["pending"] == 0)
    #expect(account["writes"] == [["path": "books/b-7", "method": "PUT", "outcome": "applied", "etag": "\"2-j\"", "merged": nil]])
}

@Test func pushQuietSaysNothingOnATemporaryFailure() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("-q", "push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stdout == "" && run.stderr == "", "\(run)")
}

@Test func pushQuietSpeaksWhenTheOldestWriteHasWaitedOverADay() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.clock.advance(by: 2 * 86_400)
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("-q", "push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr.contains("connection refused"), "\(run)")
}

@Test func pushOnA429WaitsForTheDelayTheServerAsks() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(429, "Too many requests", headers: [("Retry-After", "7")]))
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr == "lib: 127.0.0.1 answered 429 Too Many Requests: try again in 7 s. 1 write is saved on this device.\n", "\(run)")
    #expect(try machine.outbox().first?.status == .pending)
}

@Test func pushOnA409ForAKeyStillInFlightTriesAgainLater() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(409, "A request with this key is still being processed"))
    }
    let run = machine.lib("push")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr == "lib: 127.0.0.1 answered 409 Conflict: try again later. 1 write is saved on this device.\n", "\(run)")
    #expect(try machine.outbox().first?.status == .pending, "a 409 is not a conflict to resolve")
}

@Test func pushOfAChangeToABookDeletedOnTheServerIsAConflictWithNothingOnTheirSide() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(412, "Book 'b-7' was deleted", members: [("current", .null), ("current_etag", .null)]))
    }
    #expect(machine.lib("push").exitCode == .attention)
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .conflict && item.theirsBody == nil)
    let show = machine.lib("resolve", "books/b-7")
    #expect(show.stdout.contains("Theirs: the server no longer has it (deleted).\n"), "\(show)")
    #expect(show.stdout.contains("--mine     creates it again with your version"), "\(show)")
    // --mine creates it again: If-None-Match: *, no If-Match.
    #expect(machine.lib("resolve", "books/b-7", "--mine").exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"3-n\"", status: 201) }
    #expect(machine.lib("push").exitCode == .success)
    let put = machine.server.requests("PUT", "/v1/books/b-7").last
    #expect(put?.headers["If-None-Match"] == "*" && put?.headers["If-Match"] == nil, "\(String(describing: put))")
}

@Test func pushOfASuccessWithoutAnETagOrWithAnotherBookKeepsTheWritePending() throws {
    let machine = try machineWithOneWrite()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.json(200, (try? JSONParser.parse(request.body)) ?? .null))
    }
    let noETag = machine.lib("push")
    #expect(noETag.exitCode == .temporaryFailure, "\(noETag)")
    #expect(noETag.stderr.contains("200 JSON without an ETag"), "\(noETag)")
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.json(200, ["id": "b-8", "title": "Not this one"], [("ETag", "\"1-z\"")]))
    }
    let otherBook = machine.lib("push")
    #expect(otherBook.exitCode == .temporaryFailure, "\(otherBook)")
    #expect(otherBook.stderr.contains("did not come from the library server"), "\(otherBook)")
    #expect(try machine.outbox().first?.status == .pending)
    #expect(try machine.cached("books/b-7")?.etag == Fixtures.duneETag)
}
