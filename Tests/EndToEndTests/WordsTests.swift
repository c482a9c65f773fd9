import Foundation
import Testing
import TestSupport

/// The words of issue 37's list, each where it lives: a number typed with
/// `=` gets the `FIELD:=` hint, `lib new` names no id that never existed,
/// `edit books --create` points to `lib new`, a delete is said once, and
/// `resolve PATH` says which other account has the conflict.
@Suite struct WordsTests {
    @Test func aNumberTypedWithEqualsGetsTheColonEqualsHint() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-7").status == 0)
        let edit = try alice.lib("edit", "books/b-7", "year=1813")
        #expect(edit.status == 1, "\(edit)")
        #expect(edit.stderr.contains("books/b-7 was not saved: 'year' must be an integer, not string; to give year as a number, write `year:=1813`."),
                "\(edit)")
        let made = try alice.lib("new", "books", "title=Emma", "year=1815")
        #expect(made.status == 1, "\(made)")
        #expect(made.stderr == "lib: The new document was not saved: 'year' must be an integer, not string; to give year as a number, write `year:=1815`.\n",
                "no id that never existed: \(made)")
        let create = try alice.lib("edit", "books", "--create", "title=Emma")
        #expect(create.status == 2 && create.stderr.contains("`lib new books` makes a new document in it"), "\(create)")
        let saved = try alice.lib("new", "books", "title=Emma", "year:=1815")
        #expect(saved.status == 0 && saved.stderr.hasSuffix("1 write pending for \(alice.account("alice", on: server)).\n"), "\(saved)")
    }

    @Test func aDeleteIsSaidOnce() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-3").status == 0)
        #expect(try alice.lib("edit", "books/b-3", "--delete").status == 0)
        let dryRun = try alice.lib("push", "-n")
        #expect(dryRun.stdout.contains("1. DELETE books/b-3 delete (If-Match"), "\(dryRun)")
        #expect(try alice.lib("push").status == 0)
        let log = try alice.lib("log")
        #expect(log.stdout.contains("delete  books/b-3") && !log.stdout.contains("deleted"), "\(log)")
        let history = try alice.lib("log", "books/b-3")
        #expect(history.stdout.contains("  delete") && !history.stdout.contains("deleted"), "\(history)")
    }

    @Test func resolveSaysWhichAccountHasTheConflict() throws {
        let conflict = try ResolveTests().makeConflict(bob: ["title=Dune (bob)"], alice: ["title=Dune (alice)"])
        let device = conflict.alice
        try device.login("bob", to: conflict.server)
        let resolve = try device.lib("resolve", "books/b-7")
        #expect(resolve.status == 1, "\(resolve)")
        #expect(resolve.stderr.contains("no conflict or rejected write for \(device.account("bob", on: conflict.server))."
            + " \(conflict.account) has a conflict there: run `lib -A \(conflict.account) resolve books/b-7`."), "\(resolve)")
    }
}
