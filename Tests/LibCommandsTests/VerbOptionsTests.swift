import LibBase
import LibCLI
import LibClient
@testable import LibCommands
import Testing

// Each verb's typed options, read from argv as the dispatcher reads them:
// what a verb is handed before it touches a file, the keyring or a server.

private func options<V: Verb>(_ verb: V.Type, _ arguments: String...) throws -> V.Options {
    guard case .run(let parsed) = try CommandLineParser(registry: .lib).parse([V.name] + arguments) else {
        throw UsageError("\(arguments) did not parse to a command line", command: V.name)
    }
    return try V.options(parsed)
}

@Test func getReadsPathFreshnessAndTimeout() throws {
    let plain = try options(Get.self, "books/b-7")
    #expect(plain.path.description == "books/b-7" && plain.freshness == .preferFresh && plain.timeout == nil)
    #expect(try options(Get.self, "books", "--offline").freshness == .offline)
    let fresh = try options(Get.self, "books", "--fresh", "--timeout", "2m")
    #expect(fresh.freshness == .fresh && fresh.timeout == 120)
    #expect(throws: UsageError.self) { try options(Get.self, "/etc/passwd") }
}

@Test func editReadsAssignmentsAndItsFlags() throws {
    let edit = try options(Edit.self, "books/b-7", "title=Dune", "copies:=3", "--push")
    #expect(edit.id == "b-7" && edit.assignments.count == 2 && edit.push && !edit.create && !edit.delete)
    #expect(try options(Edit.self, "books/b-9", "--create", "title=X").create)
    #expect(try options(Edit.self, "books/b-9", "--delete").delete)
    #expect(throws: UsageError.self) { try options(Edit.self, "books/b-9", "--delete", "title=X") }
    #expect(throws: UsageError.self) { try options(Edit.self, "books") }
}

@Test func pushReadsWaitWatchAndAll() throws {
    let wait = try options(Push.self, "--wait", "90s", "--all")
    #expect(wait.wait == 90 && wait.all && !wait.watch)
    let watch = try options(Push.self, "--watch")
    #expect(watch.watch && watch.wait == nil && !watch.all)
}

@Test func statusReadsItsFormats() throws {
    #expect(try options(Status.self, "-s").short)
    #expect(try options(Status.self, "--porcelain").porcelain)
    let prompt = try options(Status.self, "--prompt", "--all")
    #expect(prompt.prompt && prompt.all)
}

@Test func resolveReadsPathAndChoice() throws {
    let list = try options(Resolve.self)
    #expect(list.path == nil && list.action == nil)
    let mine = try options(Resolve.self, "books/b-7", "--mine", "--whole", "--yes")
    #expect(mine.path?.description == "books/b-7" && mine.action?.spelling == "--mine --whole" && mine.yes)
    #expect(try options(Resolve.self, "books/b-7", "--merge").action?.spelling == "--merge")
    #expect(throws: UsageError.self) { try options(Resolve.self, "--theirs") }
    #expect(throws: UsageError.self) { try options(Resolve.self, "books/b-7", "--merge", "--whole") }
    #expect(throws: UsageError.self) { try options(Resolve.self, "books", "--mine") }
}

@Test func discardDiffLogoutSwitchAndLoginReadTheirArguments() throws {
    let discard = try options(Discard.self, "books/b-7", "books/b-8")
    #expect(discard.paths.map(\.description) == ["books/b-7", "books/b-8"] && !discard.all)
    #expect(try options(Diff.self, "books/b-7").path?.description == "books/b-7")
    #expect(try options(Diff.self).path == nil)
    let logout = try options(Logout.self, "bob", "--discard", "--yes")
    #expect(logout.account == "bob" && logout.discard && logout.yes)
    #expect(try options(Switch.self, "alice").account == "alice")
    #expect(try options(Switch.self).account == nil)
    let login = try options(Login.self, "http://127.0.0.1:80", "--user", "alice", "--password-stdin")
    #expect(login.server?.description == "http://127.0.0.1" && login.user == "alice" && login.secretSource == .passwordFromStdin)
    #expect(try options(Login.self).server == nil)
    #expect(throws: UsageError.self) { try options(Login.self, "ftp://127.0.0.1") }
}

@Test func logRevertNewRestoreAndPushDryRunReadTheirOptionsAndPlacement() throws {
    let log = try options(Log.self)
    #expect(log.path == nil && log.limit == nil && !Log.runsOnline(log), "the device's log: the static lib")
    let book = try options(Log.self, "books/b-7", "-n", "5")
    #expect(book.path?.description == "books/b-7" && book.limit == 5 && Log.runsOnline(book), "the server's history: lib-online")
    #expect(!Log.runsOnline(try options(Log.self, "books/b-7", "--offline")))
    #expect(throws: UsageError.self) { try options(Log.self, "-n", "many") }
    #expect(throws: UsageError.self) { try options(Log.self, "books") }
    let revert = try options(Revert.self, "books/b-7")
    #expect(revert.path.description == "books/b-7" && !Revert.runsOnline(revert))
    #expect(throws: UsageError.self) { try options(Revert.self, "books") }
    let new = try options(New.self, "books", "title=Emma", "year:=1815")
    #expect(new.collection == "books" && new.assignments.count == 2 && !New.runsOnline(new))
    #expect(throws: UsageError.self) { try options(New.self, "books/b-1") }
    let restore = try options(Restore.self, "books/b-7")
    #expect(restore.paths.map(\.description) == ["books/b-7"] && restore.command == "restore" && !Restore.runsOnline(restore))
    let dryRun = try options(Push.self, "-n", "--all")
    #expect(dryRun.dryRun && dryRun.all && !Push.runsOnline(dryRun), "a dry run needs neither network nor keyring")
    #expect(Push.runsOnline(try options(Push.self)))
    #expect(throws: UsageError.self) { try options(Push.self, "--dry-run", "--watch") }
}

@Test func pullReadsAll() throws {
    #expect(try options(Pull.self, "--all").all)
    #expect(try !options(Pull.self).all)
}

@Test func searchReadsTextSortAndLimit() throws {
    let plain = try options(Search.self, "Dune, Herbert!")
    #expect(plain.query.words == ["Dune", "Herbert"] && plain.order == .relevance && plain.limit == Search.defaultLimit)
    let sorted = try options(Search.self, "dune", "--sort", "year", "--limit", "5")
    #expect(sorted.order == .field("year") && sorted.limit == 5)
    #expect(try options(Search.self, "dune", "--sort", "relevance").order == .relevance)
    #expect(throws: UsageError.self) { try options(Search.self, "***") }
    #expect(throws: UsageError.self) { try options(Search.self, "dune", "--limit", "0") }
    #expect(throws: (any Error).self) { try options(Search.self, "dune", "--sort", "colour") }
}

/// A search costs what its different words cost (issue 39): 20,000 repeats
/// of a word are one word; more than 32 different words are refused at once.
@Test func searchCountsDifferentWordsAndTakesAtMost32() throws {
    let repeated = try options(Search.self, Array(repeating: "dune Dune", count: 10_000).joined(separator: " "))
    #expect(repeated.query.words == ["dune"])
    #expect(try options(Search.self, (1...32).map { "w\($0)" }.joined(separator: " ")).query.words.count == 32)
    #expect(throws: UsageError("a search takes at most 32 different words; this one has 33", command: "search")) {
        try options(Search.self, (1...33).map { "w\($0)" }.joined(separator: " "))
    }
}
