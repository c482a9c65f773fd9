import Foundation
import Testing
import TestSupport

/// What lib says is true and fits (issue 24): output that did not reach
/// standard output fails the command, a terminal that cannot page gets no
/// pager, messages agree in number and name the command that helps.
@Suite struct HonestOutputTests {
    /// Runs `lib ARGS` through sh, with `redirection` applied to lib's standard output.
    private func libRedirected(_ lib: LibHarness, _ arguments: String, _ redirection: String) throws -> CommandResult {
        try CommandRunner.run("/bin/sh", ["-c", "exec \(BuiltProducts.path("lib")) \(arguments) \(redirection)"],
                              environment: lib.environment)
    }

    @Test func outputThatCannotBeWrittenFailsWithTheReason() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)

        let full = try libRedirected(lib, "get books --offline", ">/dev/full")
        #expect(full.status == 1, "\(full)")
        #expect(full.stderr.contains("lib: couldn't write to standard output: No space left on device"), "\(full)")
        let closed = try libRedirected(lib, "get books --offline", ">&-")
        #expect(closed.status == 1, "\(closed)")
        #expect(closed.stderr.contains("lib: couldn't write to standard output: Bad file descriptor"), "\(closed)")
        // Nothing to write, nothing to fail.
        let quiet = try libRedirected(lib, "-q switch \(lib.account("alice", on: server))", ">/dev/full")
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test func pushWaitOffATerminalSaysWhatItDidUnlessQuiet() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/w-3", "--create", "title=Cron").status == 0)
        let push = try lib.lib("push", "--wait", "30")
        #expect(push.status == 0, "\(push)")
        #expect(push.stdout.contains("Pushed 1 write to 127.0.0.1:\(server.port) as \(lib.account("alice", on: server))"), "\(push)")
        #expect(try lib.lib("edit", "books/w-3", "title=Cron 2").status == 0)
        let quiet = try lib.lib("-q", "push", "--wait", "30")
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test(arguments: [40, 80])
    func aMessageWiderThanTheTerminalIsWrappedBetweenWords(columns: Int) throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let piped = try lib.lib("get", "books/b-1", "--offline")
        #expect(piped.status == 1 && piped.stderr.count > 80, "a long message, one line in a pipe: \(piped)")
        let shown = try lib.onTerminal("get books/b-1 --offline", columns: columns, environment: ["NO_COLOR": "1"])
        #expect(shown.status == 1, "\(shown)")
        let lines = shown.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        #expect(lines.count > 1, "\(shown)")
        for line in lines { #expect(line.count < columns, "\(line.count) columns: '\(line)'") }
        // The same words in the same order: no word was cut.
        #expect(shown.stdout.split(whereSeparator: \.isWhitespace) == piped.stderr.split(whereSeparator: \.isWhitespace), "\(shown)")
    }

    @Test(arguments: [40, 80])
    func resolvesViewShowsClashingValuesWholeWithinTheWidth(columns: Int) throws {
        let conflict = try ResolveTests().makeConflict(bob: ["title=The Remains of the Day (3rd ed.)"],
                                                       alice: ["title=The Remains of the Day (2nd ed.)"])
        let view = try conflict.alice.onTerminal("resolve books/b-7", columns: columns, environment: ["NO_COLOR": "1"])
        #expect(view.status == 3, "\(view)")
        let lines = view.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        for line in lines { #expect(line.count <= columns, "\(line.count) columns: '\(line)'") }
        // Cut to fit, both titles read "The Remains of the D…"; whole, they differ.
        #expect(view.stdout.contains("2nd") && view.stdout.contains("3rd"), "\(view)")
        #expect(!view.stdout.contains("…"), "nothing cut: \(view)")
    }

    /// TERM=dumb: no escape sequence at all (issue 37); another terminal
    /// gets its colour, so the check can fail.
    @Test func aDumbTerminalGetsNoEscapeSequence() throws {
        let lib = try LibHarness()
        let dumb = try lib.onTerminal("frobnicate", environment: ["TERM": "dumb", "NO_COLOR": ""])
        #expect(dumb.status == 2 && dumb.stdout.contains("unknown command"), "\(dumb)")
        #expect(!dumb.stdout.contains("\u{1B}"), "\(dumb.stdout.debugDescription)")
        let coloured = try lib.onTerminal("frobnicate", environment: ["TERM": "xterm-256color", "NO_COLOR": ""])
        #expect(coloured.stdout.contains("\u{1B}["), "\(coloured.stdout.debugDescription)")
    }

    @Test(arguments: ["dumb", ""])
    func aTerminalThatCannotPageGetsNoPager(term: String) throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        // less on a dumb terminal stops to warn and waits for RETURN: the
        // test would hang until script's timeout.
        let shown = try lib.onTerminal("get books --offline", columns: 80,
                                       environment: ["TERM": term, "PAGER": "less", "NO_COLOR": "1"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("b-20") && !shown.stdout.contains("not fully functional"), "\(shown)")
    }

    @Test func messagesAgreeInNumberAndNameTheCommandThatHelps() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "--delete").status == 0)

        // A deleted document names the command that takes the delete back, and it works.
        let again = try lib.lib("edit", "books/b-7", "title=X")
        #expect(again.status == 1, "\(again)")
        #expect(again.stderr.contains("run `lib discard books/b-7` to take the delete back"), "\(again)")
        #expect(try lib.lib("discard", "books/b-7").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "title=Dune (restored)").status == 0)

        let logout = try lib.lib("logout")
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stdout.contains("Set aside 1 write not sent yet; it comes back when you sign in again as"), "\(logout)")
    }
}

/// Progress lines on a terminal (issue 24): they fit its width, and a push
/// says it waits for another only when one really holds the account's lock.
@Suite struct ProgressLineTests {
    /// Each state of the one rewritten line: the text between `\r ESC[K` redraws.
    private func redraws(_ output: String) -> [String] {
        output.components(separatedBy: "\r\u{1B}[K").map { $0.components(separatedBy: "\n")[0].replacingOccurrences(of: "\r", with: "") }
            .filter { !$0.isEmpty }
    }

    @Test(arguments: [40, 80])
    func theCountdownFitsTheTerminal(columns: Int) throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/w-1", "--create", "title=Waiting").status == 0)
        server.stop()
        let push = try lib.onTerminal("push --wait 3", columns: columns, environment: ["NO_COLOR": "1"])
        #expect(push.status == 75, "\(push)")
        let lines = redraws(push.stdout).filter { $0.contains("s left") }
        #expect(!lines.isEmpty, "a countdown was shown: \(push)")
        for line in lines { #expect(line.count < columns, "\(line.count) columns: '\(line)'") }
        #expect(!push.stdout.contains("Waiting for another push"), "no other push runs: \(push)")
    }

    @Test func waitingForAnotherPushShowsOnlyWhileOneHoldsTheLock() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("edit", "books/w-2", "--create", "title=Second").status == 0)
        let alone = try lib.onTerminal("push", columns: 80, environment: ["NO_COLOR": "1"])
        #expect(alone.status == 0 && !alone.stdout.contains("Waiting for another push"), "\(alone)")

        #expect(try lib.lib("edit", "books/w-2", "title=Third").status == 0)
        let lock = lib.home.path + "/data/accounts/\(lib.account("alice", on: server))/push.lock"
        #expect(FileManager.default.fileExists(atPath: lock), "\(lock)")
        // flock(1) holds the lock for 2 s while the push waits for it.
        let command = "flock \(lock) sleep 2 & sleep 0.3; stty cols 80; exec \(BuiltProducts.path("lib")) push --wait 20"
        let waited = try CommandRunner.run("/usr/bin/script", ["-qec", command, "/dev/null"],
                                           environment: lib.environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(waited.status == 0, "\(waited)")
        #expect(waited.stdout.contains("Waiting for another push of \(lib.account("alice", on: server)) to finish"), "\(waited)")
        #expect(try serverHistory(server, book: "w-2").count == 2)
    }
}
