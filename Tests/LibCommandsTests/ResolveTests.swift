import LibBase
import LibJSON
import LibNet
import LibSync
import Testing

// `lib resolve`: listing, showing and settling what a 412 stored, offline;
// then what the next push sends for it.

/// b-7 in conflict: mine sets `mine` over Dune; the server has Dune with
/// copies 5 (`Fixtures.duneTheirs`).
private func machineInConflict(_ mine: String...) throws -> Machine {
    let machine = try Machine()
    machine.signInWithDune()
    #expect(machine.lib(["edit", "books/b-7"] + mine).exitCode == .success)
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
    }
    #expect(machine.lib("push").exitCode == .attention)
    return machine
}

/// Expects the next push to send b-7 against the server's version, with
/// `document`, and answers it.
private func expectPushOfSettledWrite(_ machine: Machine, sending document: JSONValue,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
    machine.server.on("PUT", "/v1/books/b-7") { request in Answers.stored(request, etag: "\"3-s\"") }
    let run = machine.lib("push")
    #expect(run.exitCode == .success, "\(run)", sourceLocation: sourceLocation)
    let put = machine.server.requests("PUT", "/v1/books/b-7").last
    #expect(put?.headers["If-Match"] == Fixtures.duneTheirsETag, sourceLocation: sourceLocation)
    #expect(put.flatMap { JSONValue.parsing($0.body) } == document, sourceLocation: sourceLocation)
}

@Test func resolveListsWhatWaitsAndExitsThree() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    let before = machine.server.received.count
    let run = machine.lib("resolve")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.stdout.hasPrefix("1 write of alice@127.0.0.1:8080 waits for a decision:\n  books/b-7  conflict\n"), "\(run)")
    let json = machine.lib("--json", "resolve")
    #expect(JSONValue.parsing(json.stdout) == ["account": "alice@127.0.0.1:8080", "items": [["path": "books/b-7", "status": "conflict"]]])
    #expect(machine.server.received.count == before, "resolve works offline")
}

@Test func resolveShowsBaseMineAndTheirsFieldByField() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    machine.keyring.fail(with: .locked)  // never asked
    let run = machine.lib("resolve", "books/b-7")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.stdout.hasPrefix("books/b-7 is in conflict for alice@127.0.0.1:8080: the server's copy changed after yours was based on it.\n"),
            "\(run)")
    let row = run.stdout.split(separator: "\n").first { $0.contains("copies") }.map(String.init) ?? ""
    #expect(row.hasPrefix("* copies"), "\(run)")
    #expect(row.split(separator: " ").filter { !$0.isEmpty }.suffix(3) == ["2", "3", "5"], "base, mine, theirs: \(row)")
    #expect(run.stdout.contains("* changed on both sides"), "\(run)")
}

@Test func resolveMergeTakesEachSidesOwnChangesAndTheNextPushSendsThem() throws {
    let machine = try machineInConflict("title=Dune Messiah")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--merge")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Resolved books/b-7 for alice@127.0.0.1:8080: merged (copies from the server; title from you); it will be sent at the next push.\n",
            "\(run)")
    let item = try #require(try machine.outbox().first)
    #expect(item.status == .pending && item.baseETag == Fixtures.duneTheirsETag, "rebased onto the server's version")
    expectPushOfSettledWrite(machine, sending: ["id": "b-7", "title": "Dune Messiah", "author": "Frank Herbert", "year": 1965, "copies": 5])
}

@Test func resolveMergeRefusesWhenAFieldClashes() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--merge")
    #expect(run.exitCode == .attention, "\(run)")
    #expect(run.stderr.hasPrefix("lib: "), "\(run)")
    // The field's name as it is written (never capitalised).
    #expect(run.stderr.contains("lib: copies was changed on both sides: use --mine, --theirs or --edit."), "\(run)")
    #expect(try machine.outbox().first?.status == .conflict)
}

@Test func resolveMineKeepsMyValueForTheClashAndRequeuesAgainstTheirs() throws {
    let machine = try machineInConflict("copies:=3", "title=Dune Messiah")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--mine")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Resolved books/b-7 for alice@127.0.0.1:8080: your copies; kept title from you; it will be sent at the next push.\n",
            "\(run)")
    expectPushOfSettledWrite(machine, sending: ["id": "b-7", "title": "Dune Messiah", "author": "Frank Herbert", "year": 1965, "copies": 3])
}

@Test func resolveTheirsDropsTheClashButKeepsMyOtherChanges() throws {
    let machine = try machineInConflict("copies:=3", "title=Dune Messiah")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--theirs")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout.contains("the server's copies; kept title from you"), "\(run)")
    expectPushOfSettledWrite(machine, sending: ["id": "b-7", "title": "Dune Messiah", "author": "Frank Herbert", "year": 1965, "copies": 5])
}

@Test func resolveTheirsWhenOnlyTheClashWasMineLeavesNothingToSend() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--theirs")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout.contains("nothing of yours is left to send"), "\(run)")
    #expect(try machine.outbox().isEmpty)
    #expect(try machine.cached("books/b-7")?.etag == Fixtures.duneTheirsETag)
    #expect(JSONValue.parsing(machine.lib("get", "--offline", "books/b-7").stdout) == Fixtures.duneTheirs)
}

@Test func resolveTheirsWholeNeedsYesWhenItRevertsMyOtherChanges() throws {
    let machine = try machineInConflict("copies:=3", "title=Dune Messiah")
    defer { machine.verify() }
    let refused = machine.lib("resolve", "books/b-7", "--theirs", "--whole")
    #expect(refused.exitCode == .usage, "\(refused)")
    #expect(refused.stderr.contains("--theirs --whole reverts title (changed by you alone): add --yes to confirm"), "\(refused)")
    #expect(try machine.outbox().first?.status == .conflict)
    let run = machine.lib("resolve", "books/b-7", "--theirs", "--whole", "--yes")
    #expect(run.exitCode == .success, "\(run)")
    #expect(try machine.outbox().isEmpty)
}

@Test func resolveDiscardDropsTheWrite() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-7", "--discard")
    #expect(run.exitCode == .success, "\(run)")
    #expect(try machine.outbox().isEmpty)
    #expect(machine.lib("resolve").stdout == "Nothing to resolve for alice@127.0.0.1:8080.\n")
}

@Test func resolveMineOnARejectedWriteIsAUsageError() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "copies:=3")
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.echoingKey(of: request, Answers.problem(403, "Readers may not write"))
    }
    #expect(machine.lib("push").exitCode == .attention)
    let show = machine.lib("resolve", "books/b-7")
    #expect(show.exitCode == .attention)
    #expect(show.stdout.hasPrefix("books/b-7 was rejected by the server for alice@127.0.0.1:8080: Readers may not write.\n"), "\(show)")
    let run = machine.lib("resolve", "books/b-7", "--mine")
    #expect(run.exitCode == .usage, "\(run)")
    #expect(run.stderr.contains("books/b-7 was rejected by the server, not in conflict: --mine does not apply; use --edit or --discard"), "\(run)")
}

@Test func resolveOfAPathWithNothingToResolveFails() throws {
    let machine = try machineInConflict("copies:=3")
    defer { machine.verify() }
    let run = machine.lib("resolve", "books/b-9", "--mine")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr == "lib: Nothing to resolve for books/b-9: it has no conflict or rejected write for alice@127.0.0.1:8080.\n")
}
