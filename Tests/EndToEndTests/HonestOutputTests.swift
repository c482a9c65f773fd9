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
