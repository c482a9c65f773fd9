import LibBase
import LibJSON
import LibNet
import LibSync
import Testing

// `lib edit`: fields, create, delete, bad input; what the outbox holds.

@Test func editSavesTheFieldsChangedAgainstTheCachedVersion() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let before = machine.server.received.count
    let run = machine.lib("edit", "books/b-7", "title=Dune Messiah", "year:=1969")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Saved on this device; 1 write pending for alice@127.0.0.1:8080.\n")
    #expect(machine.server.received.count == before, "an edit of a cached document sends nothing")
    let item = try #require(try machine.outbox().first)
    #expect(item.kind == .change && item.status == .pending)
    #expect(item.intent.fieldNames == ["title", "year"])
    #expect(item.baseETag == Fixtures.duneETag)
    #expect(item.createdAt == machine.clock.now.secondsSince1970)
    #expect(item.documentToSend.map { JSONValue.object($0) }
            == ["id": "b-7", "title": "Dune Messiah", "author": "Frank Herbert", "year": 1969, "copies": 2])
}

@Test func editOfADocumentNeverSeenFetchesItFirst() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    machine.server.expectSchema()
    machine.server.expectBook("b-7", Fixtures.dune, etag: Fixtures.duneETag)
    let run = machine.lib("edit", "books/b-7", "copies:=4")
    #expect(run.exitCode == .success, "\(run)")
    #expect(try machine.outbox().first?.baseETag == Fixtures.duneETag)
    #expect(try machine.cached("books/b-7")?.etag == Fixtures.duneETag)
}

@Test func editOfADocumentNeverSeenWhileOfflineSaysWhatToDo() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let origin = machine.server.origin
    machine.server.on("GET", "/v1/schemas/book") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("edit", "books/b-7", "copies:=4")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr.contains("books/b-7 is not on this device yet and couldn't be fetched"), "\(run)")
    #expect(run.stderr.contains("Run `lib get books/b-7` while online, then edit it."), "\(run)")
    #expect(try machine.outbox().isEmpty)
}

@Test func editCreateQueuesACreateWithoutTouchingTheNetwork() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let run = machine.lib("edit", "books/b-21", "--create", "title=Emma", "tags:=[\"novel\"]")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Saved on this device; 1 write pending for alice@127.0.0.1:8080.\n")
    let item = try #require(try machine.outbox().first)
    #expect(item.kind == .create && item.createOnly)
    #expect(item.baseETag == nil)
    #expect(item.documentToSend.map { JSONValue.object($0) } == ["id": "b-21", "title": "Emma", "tags": ["novel"]])
    #expect(machine.server.received.count == 2)  // the sign-in's
}

@Test func editCreateOfADocumentThisDeviceHasFails() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.lib("edit", "books/b-7", "--create", "title=Dune")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr == "lib: books/b-7 already exists (this device has a copy): edit it without --create.\n")
    #expect(try machine.outbox().isEmpty)
}

@Test func editDeleteQueuesADeleteAgainstTheCachedVersion() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.lib("--json", "edit", "books/b-7", "--delete")
    #expect(run.exitCode == .success, "\(run)")
    let document = try #require(JSONValue.parsing(run.stdout))
    #expect(document["method"] == "DELETE" && document["outcome"] == "queued" && document["pending"] == 1)
    let item = try #require(try machine.outbox().first)
    #expect(item.kind == .delete && item.baseETag == Fixtures.duneETag)
    // Deleted on this device: a later edit says so.
    let again = machine.lib("edit", "books/b-7", "title=X")
    #expect(again.exitCode == .failure)
    #expect(again.stderr.contains("is deleted on this device (not pushed yet): run `lib discard books/b-7` to take the delete back"), "\(again)")
}

@Test func editWithJSONThatDoesNotParseIsAUsageError() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.lib("edit", "books/b-7", "year:=19x5")
    #expect(run.exitCode == .usage, "\(run)")
    #expect(run.stderr.contains("year"), "\(run)")
    #expect(run.stderr.hasSuffix("Run 'lib edit --help' for usage.\n"), "\(run)")
    #expect(try machine.outbox().isEmpty)
}

@Test func editThatWouldMakeAnInvalidBookIsRefusedNamingTheField() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.lib("edit", "books/b-7", "year=1965")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr.hasPrefix("lib: books/b-7 was not saved: "), "\(run)")
    #expect(run.stderr.contains("year"), "\(run)")
    let unknown = machine.lib("edit", "books/b-7", "colour=red")
    #expect(unknown.exitCode == .failure, "\(unknown)")
    #expect(unknown.stderr.contains("colour"), "\(unknown)")
    #expect(try machine.outbox().isEmpty)
}

@Test func editThatChangesNothingSavesNothing() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    let run = machine.lib("edit", "books/b-7", "title=Dune")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Nothing changed; books/b-7 is as it was.\n")
    #expect(try machine.outbox().isEmpty)
}

@Test func twoEditsNotYetSentCoalesceIntoOneWrite() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "copies:=3")
    let second = machine.lib("--json", "edit", "books/b-7", "title=Dune (2nd ed.)")
    #expect(JSONValue.parsing(second.stdout)?["outcome"] == "coalesced", "\(second)")
    let items = try machine.outbox()
    #expect(items.count == 1)
    #expect(items.first?.intent.fieldNames.sorted() == ["copies", "title"])
}

@Test func editPushSavesThenSends() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"2-aa\"") }
    let run = machine.lib("edit", "books/b-7", "copies:=3", "--push")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Saved on this device; 1 write pending for alice@127.0.0.1:8080.\n"
            + "Pushed 1 write to 127.0.0.1:8080 as alice@127.0.0.1:8080.\n", "\(run)")
    #expect(try machine.outbox().isEmpty)
}
