import Foundation
import Testing
import TestSupport

/// The editor's temporary file is removed on every exit path, signals
/// included (issue 24): Ctrl-C reaches the editor, which decides, and lib
/// cleans up after it; SIGTERM or SIGHUP to lib remove the file before lib
/// ends as they would have ended it.
@Suite struct EditorSignalTests {
    private func editing() throws -> (LibHarness, ServerProcess, TemporaryDirectory, TemporaryDirectory) {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        try lib.cache(["books/b-7"], from: server, as: "alice")
        return (lib, server, try TemporaryDirectory("lib-e2e-tmp"), try TemporaryDirectory("lib-e2e-editor"))
    }

    /// Runs `program ARGS` with every signal unblocked, as from a shell
    /// (the test runner's children inherit a mask that blocks most of them).
    private func unblocked(_ program: String, _ arguments: [String], environment: [String: String]) throws -> CommandResult {
        let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, range(1, signal.NSIG)); "
            + "os.execv(sys.argv[1], sys.argv[1:])"
        return try CommandRunner.run("/usr/bin/python3", ["-c", unblock, program] + arguments, environment: environment)
    }

    private func leftovers(_ tmp: TemporaryDirectory) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
    }

    @Test(arguments: [["edit", "books/b-7"], ["resolve-edit"]])
    func ctrlCInTheEditorLeavesNoFileBehind(arguments: [String]) throws {
        let (lib, server, tmp, scripts) = try editing()
        var line = arguments
        if arguments == ["resolve-edit"] {
            let bob = try LibHarness()
            try bob.login("bob", to: server)
            #expect(try bob.lib("edit", "books/b-7", "title=Dune (bob)", "--push").status == 0)
            #expect(try lib.lib("edit", "books/b-7", "title=Dune (alice)").status == 0)
            #expect(try lib.lib("push").status == 3)
            line = ["resolve", "books/b-7", "--edit"]
        }
        if arguments == ["edit", "books/b-7"] {
            #expect(try lib.lib("edit", "books/b-7", "title=Dune (mine)").status == 0)
        }
        let before = try lib.lib("status", "--porcelain")
        // Ctrl-C at a terminal: SIGINT to the whole foreground group, lib and the editor
        // (setsid: lib leads a group of its own, the shell that reports its status is outside).
        try writeScript(scripts.file("interrupted"), "cp \"$1\" \(scripts.file("seen")); kill -INT 0; sleep 5\n")
        let run = try unblocked("/bin/sh", ["-c", "setsid \"$0\" \"$@\"; echo \"status $?\"", BuiltProducts.path("lib")] + line,
                                environment: lib.environment.merging(["EDITOR": scripts.file("interrupted"), "VISUAL": "",
                                                                      "TMPDIR": tmp.path]) { $1 })
        #expect(FileManager.default.fileExists(atPath: scripts.file("seen")), "the editor ran: \(run)")
        // Ended by SIGINT as the editor was: 130 to the shell, not 1.
        #expect(run.stdout == "status 130\n", "\(run)")
        // (python's own warnings come before it.)
        #expect(run.stderr.hasSuffix("\nlib: The editor (\(scripts.file("interrupted"))) was interrupted (Ctrl-C); nothing was changed.\n"), "\(run)")
        #expect(leftovers(tmp).isEmpty, "left behind: \(leftovers(tmp))")
        // Nothing lost: the pending write (or the conflict) is as it was.
        let after = try lib.lib("status", "--porcelain")
        #expect(after.stdout == before.stdout, "before: \(before)\nafter: \(after)")
    }

    @Test(arguments: ["TERM", "HUP"])
    func aSignalToLibRemovesTheFileBeforeItEnds(signal: String) throws {
        let (lib, _, tmp, scripts) = try editing()
        let pidFile = scripts.file("lib.pid")
        try writeScript(scripts.file("killer"), "cp \"$1\" \(scripts.file("seen")); while [ ! -s \(pidFile) ]; do sleep 0.05; done; kill -\(signal) $(cat \(pidFile)); sleep 2\n")
        let command = "\(BuiltProducts.path("lib")) edit books/b-7 & echo $! > \(pidFile); wait $!; echo \"status $?\""
        let run = try unblocked("/bin/sh", ["-c", command],
                                        environment: lib.environment.merging(["EDITOR": scripts.file("killer"), "VISUAL": "",
                                                                              "TMPDIR": tmp.path]) { $1 })
        #expect(FileManager.default.fileExists(atPath: scripts.file("seen")), "the editor ran: \(run)")
        let code = signal == "TERM" ? 143 : 129
        #expect(run.stdout.contains("status \(code)"), "lib ended by SIG\(signal): \(run)")
        #expect(leftovers(tmp).isEmpty, "left behind: \(leftovers(tmp))")
        #expect(try lib.pending() == 0)
    }
}
