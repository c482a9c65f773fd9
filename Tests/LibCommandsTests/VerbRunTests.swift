import LibBase
import LibClient
@testable import LibCommands
import LibJSON
import LibNet
import Testing

// The verbs' `run`, called directly with typed options (no command line):
// push, pull and resolve do their whole job from their options alone.

/// Signed in, b-7 cached, its copies changed to 3; with `conflicting`, the
/// server answers that write's push with a 412 (Dune with copies 5).
private func machineWithAnEdit(conflicting: Bool = false) throws -> Machine {
    let machine = try Machine()
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=3").exitCode == .success)
    if conflicting {
        machine.server.on("PUT", "/v1/books/b-7") { request in
            Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
        }
    }
    return machine
}

private let pushNow = Push.Options(wait: nil, watch: false, all: false)

@Test func pushRunSendsThePendingWriteAndEmptiesTheOutbox() throws {
    let machine = try machineWithAnEdit()
    defer { machine.verify() }
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-c0ffee\"") }
    let run = machine.run(Push.self, pushNow)
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Pushed 1 write to 127.0.0.1:8080 as alice@127.0.0.1:8080.\n")
    #expect(machine.server.requests("PUT", "/v1/books/b-7").first?.headers["If-Match"] == Fixtures.duneETag)
    #expect(try machine.outbox().isEmpty)
    #expect(try machine.cached("books/b-7")?.etag == "\"2-c0ffee\"")
}

@Test func pushRunThatMeetsA412KeepsTheWriteAsAConflictAndExitsThree() throws {
    let machine = try machineWithAnEdit(conflicting: true)
    defer { machine.verify() }
    let run = machine.run(Push.self, pushNow)
    #expect(run.exitCode == .attention, "\(run)")
    #expect(try machine.outbox().map(\.status) == [.conflict])
}

@Test func pullRunListsTheLibraryIntoTheCache() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.expectSchema()
    machine.server.on("GET", "/v1/changes") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
    machine.server.on("GET", "/v1/books?limit=1000") { _ in
        Answers.json(200, ["items": [["id": "b-7", "title": "Dune", "author": "Frank Herbert", "etag": "\"1-b\""]],
                           "next": nil, "total": 1])
    }
    machine.server.on("GET", "/v1/changes?limit=1000&since=e-1") { _ in Answers.json(200, ["items": [], "next": "e-1"]) }
    let run = machine.run(Pull.self, Pull.Options(all: false))
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Pulled books for \(machine.account()): listed 1 book.\n")
    #expect(try machine.cached("books/b-7")?.etag == "\"1-b\"")
}

@Test func resolveRunWithTheirsSettlesTheConflictOffline() throws {
    let machine = try machineWithAnEdit(conflicting: true)
    defer { machine.verify() }
    #expect(machine.run(Push.self, pushNow).exitCode == .attention)
    let before = machine.server.received.count
    machine.keyring.fail(with: .locked)  // never asked
    let run = machine.run(Resolve.self, Resolve.Options(path: ResourcePath(collection: "books", id: "b-7"),
                                                        action: .theirs(whole: false), yes: false))
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout.hasPrefix("Resolved books/b-7 for alice@127.0.0.1:8080"), "\(run)")
    #expect(machine.server.received.count == before, "resolve sends nothing")
    // Theirs where both changed copies: nothing of mine is left to send.
    let left = try machine.outbox()
    #expect(left.isEmpty, "\(left)")
}

@Test func resolveRunWithoutAConflictSaysSoAndExitsOne() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.run(Resolve.self, Resolve.Options(path: ResourcePath(collection: "books", id: "b-7"),
                                                        action: .merge, yes: false))
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr.contains("books/b-7"), "\(run)")
}
