import LibBase
import LibJSON
import LibNet
import LibSync
import Testing

// `lib status`, `lib diff`, `lib discard`: what waits, what it changes,
// taking it back. None of them touches the network or the keyring.

/// Signs in, caches b-7, changes it, and moves the clock on by `age` seconds.
private func machineWithAChange(age: Double = 0) throws -> Machine {
    let machine = try Machine()
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "title=Dune Messiah", "year:=1969").exitCode == .success)
    machine.clock.advance(by: age)
    return machine
}

@Test func statusListsEachPendingWriteWithItsFieldsAndAge() throws {
    let machine = try machineWithAChange(age: 3 * 3600)
    defer { machine.verify() }
    let before = machine.server.received.count
    machine.keyring.fail(with: .locked)  // status never asks the keyring
    let run = machine.lib("status")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == """
        On alice@127.0.0.1:8080
        1 write pending: run `lib push` to send it, `lib diff` to see it.
          change  books/b-7  title, year · 3 hours ago

        """, "\(run)")
    #expect(machine.server.received.count == before)
}

@Test func statusShortIsOneLinePerWriteWithGitsCodes() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    machine.lib("edit", "books/b-21", "--create", "title=Emma")
    machine.lib("edit", "books/b-3", "--create", "title=Persuasion")
    let run = machine.lib("status", "--short")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "## alice@127.0.0.1:8080\nM  books/b-7\nA  books/b-21\nA  books/b-3\n", "\(run)")
}

@Test func statusPorcelainIsStableKeyValueLines() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let run = machine.lib("status", "--porcelain")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == """
        account alice@127.0.0.1:8080
        current true
        pending 1
        conflicts 0
        rejected 0
        set-aside 0
        write pending change 0 1800000000 books/b-7 title,year


        """, "\(run)")
}

@Test func statusJSONDescribesEachWrite() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let run = machine.lib("--json", "status")
    #expect(run.exitCode == .success, "\(run)")
    let account = try #require(JSONValue.parsing(run.stdout)?.arrayValue?.first, "\(run)")
    #expect(account["account"] == "alice@127.0.0.1:8080" && account["current"] == true && account["pending"] == 1)
    let write = try #require(account["writes"]?.arrayValue?.first)
    #expect(write["path"] == "books/b-7" && write["kind"] == "change" && write["status"] == "pending")
    #expect(write["fields"] == ["title", "year"])
    #expect(write["created_at"] == .integer(1_800_000_000), "unix seconds, an integer")
    #expect(write["sent_without_answer"] == false && write["last_error"] == .null)
}

@Test func statusMarksAConflictAndASentWriteWithoutAnswer() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    machine.lib("edit", "books/b-21", "--create", "title=Emma")
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { request in
        Answers.preconditionFailed(request, id: "b-7", current: Fixtures.duneTheirs, etag: Fixtures.duneTheirsETag)
    }
    machine.server.on("PUT", "/v1/books/b-21") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .responseTimeout, endpoint: origin, timeout: .seconds(30))
    }
    #expect(machine.lib("push").exitCode == .temporaryFailure)
    let run = machine.lib("status", "--short")
    #expect(run.stdout == "## alice@127.0.0.1:8080\nMU books/b-7\nAS books/b-21\n", "\(run)")
}

@Test func statusWithoutAnAccountSaysHowToSignIn() throws {
    let machine = try Machine()
    defer { machine.verify() }
    #expect(machine.lib("status").stdout == "Not signed in. Run `lib login SERVER_URL`.\n")
    #expect(machine.lib("--json", "status").stdout == "[]\n")
    #expect(machine.lib("status", "--porcelain").stdout == "")
}

@Test func diffShowsEachFieldOldToNewWithTheAge() throws {
    let machine = try machineWithAChange(age: 120)
    defer { machine.verify() }
    let run = machine.lib("diff")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == """
        books/b-7: change, pending, 2 minutes ago
          title: "Dune" → "Dune Messiah"
          year:  1965 → 1969

        """, "\(run)")
}

@Test func diffJSONAndAPathWithNothingPending() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let run = machine.lib("--json", "diff", "books/b-7")
    let write = try #require(JSONValue.parsing(run.stdout)?["writes"]?.arrayValue?.first, "\(run)")
    #expect(write["changes"] == [["field": "title", "old": "Dune", "new": "Dune Messiah"], ["field": "year", "old": 1965, "new": 1969]])
    let none = machine.lib("diff", "books/b-9")
    #expect(none.exitCode == .failure)
    #expect(none.stderr == "lib: Nothing to show for books/b-9: it has no pending write for alice@127.0.0.1:8080.\n", "\(none)")
}

@Test func discardTakesThePathsWritesBack() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let run = machine.lib("discard", "books/b-7")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "Discarded 1 write of books/b-7 for alice@127.0.0.1:8080; 0 writes left.\n", "\(run)")
    #expect(try machine.outbox().isEmpty)
    // The copy is the server's again.
    #expect(JSONValue.parsing(machine.lib("get", "--offline", "books/b-7").stdout) == Fixtures.dune)
}

@Test func discardRefusesASentWriteWithoutAnAnswerUnlessForced() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let origin = machine.server.origin
    machine.server.on("PUT", "/v1/books/b-7") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionLost, endpoint: origin)
    }
    #expect(machine.lib("push").exitCode == .temporaryFailure)
    let refused = machine.lib("discard", "books/b-7")
    #expect(refused.exitCode == .failure, "\(refused)")
    #expect(refused.stderr.contains("books/b-7 was not discarded: it was sent at"), "\(refused)")
    #expect(refused.stderr.contains("so it may be on the server"), "\(refused)")
    #expect(refused.stderr.contains("add --force"), "\(refused)")
    #expect(try machine.outbox().count == 1)

    let forced = machine.lib("discard", "books/b-7", "--force")
    #expect(forced.exitCode == .success, "\(forced)")
    #expect(forced.stdout.contains("had been sent without an answer: run `lib get PATH`"), "\(forced)")
    #expect(try machine.outbox().isEmpty)
}

@Test func discardAllNeedsYesOffATerminal() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    machine.lib("edit", "books/b-21", "--create", "title=Emma")
    let refused = machine.lib("discard", "--all")
    #expect(refused.exitCode == .usage, "\(refused)")
    #expect(refused.stderr.contains("--all would take back 2 writes of alice@127.0.0.1:8080: add --yes to confirm"), "\(refused)")
    let run = machine.lib("--json", "discard", "--all", "--yes")
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout)?["discarded"] == 2 && JSONValue.parsing(run.stdout)?["left"] == 0, "\(run)")
    #expect(try machine.outbox().isEmpty)
}

@Test func discardOfAPathWithNothingPendingFails() throws {
    let machine = try machineWithAChange()
    defer { machine.verify() }
    let run = machine.lib("discard", "books/b-9")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr == "lib: Nothing to discard for books/b-9: it has no pending write for alice@127.0.0.1:8080.\n")
    #expect(try machine.outbox().count == 1)
}
