import Foundation
import Testing
import TestSupport

/// The prompt file and the shell snippets that read it (issue 14): the
/// snippets start no process while the file is there, and the file is never
/// wrong, even when an edit is killed at any of its writes.
@Suite struct PromptTests {
    /// alice with 2 pending writes and 1 conflict, made by lib against a real server.
    func aliceWithWork() throws -> (LibHarness, ServerProcess) {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7", "books/b-8", "books/b-9"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        #expect(try bob.lib("edit", "books/b-7", "copies:=11", "--push").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "copies:=12").status == 0)
        #expect(try alice.lib("push").status == 3, "a conflict")
        #expect(try alice.lib("edit", "books/b-8", "copies:=71").status == 0)
        #expect(try alice.lib("edit", "books/b-9", "copies:=72").status == 0)
        return (alice, server)
    }

    func promptFile(_ lib: LibHarness, _ account: String) -> String {
        lib.home.path + "/data/accounts/\(account)/prompt"
    }

    /// Runs `shell ARGS` under `strace -f -e trace=execve` with lib on PATH;
    /// returns its output and the programs it started (itself first).
    func tracedShell(_ lib: LibHarness, _ shell: String, _ arguments: [String], locale: String) throws -> (CommandResult, [String]) {
        let log = lib.home.file("execve.log")
        var environment = lib.environment
        environment["PATH"] = BuiltProducts.directory.path + ":/usr/bin:/bin"
        environment["LANG"] = locale
        environment["LC_ALL"] = nil
        environment["LC_CTYPE"] = nil
        let result = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-e", "trace=execve", "-o", log, shell] + arguments,
                                           environment: environment)
        let programs = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard line.contains("execve("), !line.contains("= -1"), let start = line.range(of: "execve(\"")?.upperBound,
                  let end = line[start...].firstIndex(of: "\"") else { return nil }
            return (String(line[start..<end]) as NSString).lastPathComponent
        }
        return (result, programs)
    }

    var snippets: String { repositoryRoot() + "/contrib/prompt" }

    @Test func theBashSnippetStartsNoProcessAndShowsTheCounts() throws {
        let (alice, _server) = try aliceWithWork()
        let account = alice.account("alice", on: _server)
        #expect(try String(contentsOfFile: promptFile(alice, account), encoding: .utf8) == "alice ↑2 ≠1\nalice +2 =1\nalice\nalice\n")
        // An interactive bash prints its prompt on stderr: PROMPT_COMMAND and PS1 as sourcing set them.
        for (locale, segment) in [("C.UTF-8", "alice ↑2 ≠1"), ("C", "alice +2 =1")] {
            let (result, programs) = try tracedShell(alice, "/bin/bash", ["--norc", "--noprofile", "-i", "-c",
                "PS1='$ '; . \(snippets)/lib-prompt.bash; eval \"$PROMPT_COMMAND\"; echo \"${PS1@P}\""], locale: locale)
            #expect(result.stdout == "(\(segment)) $ \n", "\(result)")
            #expect(programs == ["bash"], "sourcing and prompting started \(programs)")
        }
    }

    @Test func theZshAndFishSnippetsStartNoProcessEither() throws {
        let (alice, _server) = try aliceWithWork()
        let (zsh, zshPrograms) = try tracedShell(alice, "/usr/bin/zsh", ["-f", "-c",
            "PROMPT='$ '; source \(snippets)/lib-prompt.zsh; __lib_prompt_update; print -rP -- \"$PROMPT\""], locale: "C.UTF-8")
        #expect(zsh.stdout == "(alice ↑2 ≠1) $ \n", "\(zsh)")
        #expect(zshPrograms == ["zsh"], "\(zshPrograms)")
        let (fish, fishPrograms) = try tracedShell(alice, "/usr/bin/fish", ["--no-config", "-c",
            "function fish_prompt; echo -n '$ '; end; source \(snippets)/lib-prompt.fish; fish_prompt; echo"], locale: "C")
        #expect(fish.stdout == "(alice +2 =1) $ \n", "\(fish)")
        #expect(fishPrograms == ["fish"], "\(fishPrograms)")
        _ = _server
    }

    /// The snippets pick the account exactly as lib would from that shell: a
    /// LIB_ACCOUNT that is not exported never reaches lib, so it does not
    /// choose the segment either (issue 24); and they print nothing on stderr.
    @Test func theSnippetsChooseTheAccountAsLibWould() throws {
        let server = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: server)
        try device.login("alice", to: server)
        let bob = device.account("bob", on: server)
        #expect(try device.lib("edit", "books/x-1", "--create", "title=A").status == 0)
        #expect(try device.lib("-A", bob, "edit", "books/x-2", "--create", "title=B").status == 0)
        #expect(try device.lib("-A", bob, "edit", "books/x-3", "--create", "title=C").status == 0)
        let lines = [
            ("/bin/bash", ["--norc", "--noprofile", "-c"], "PS1='$ '; . \(snippets)/lib-prompt.bash; eval \"$PROMPT_COMMAND\"; echo \"${PS1@P}\""),
            ("/usr/bin/zsh", ["-f", "-c"], "PROMPT='$ '; source \(snippets)/lib-prompt.zsh; __lib_prompt_update; print -rP -- \"$PROMPT\""),
            ("/usr/bin/fish", ["--no-config", "-c"], "function fish_prompt; echo -n '$ '; end; source \(snippets)/lib-prompt.fish; fish_prompt; echo"),
        ]
        for (shell, flags, script) in lines {
            var environment = device.environment
            environment["LANG"] = "C"
            environment["LC_ALL"] = nil
            let setVariable = shell.hasSuffix("fish") ? "set LIB_ACCOUNT \(bob); " : "LIB_ACCOUNT=\(bob); "
            let exportVariable = shell.hasSuffix("fish") ? "set -x LIB_ACCOUNT \(bob); " : "export LIB_ACCOUNT=\(bob); "
            let unexported = try CommandRunner.run(shell, flags + [setVariable + script], environment: environment)
            // The account in effect first, then what waits in the others, added up (issues 26, 37).
            #expect(unexported.stdout == "(alice +1 | +2) $ \n" && unexported.stderr.isEmpty, "\(shell): \(unexported)")
            let exported = try CommandRunner.run(shell, flags + [exportVariable + script], environment: environment)
            #expect(exported.stdout == "(bob +2 | +1) $ \n" && exported.stderr.isEmpty, "\(shell): \(exported)")
            // What lib itself says from that shell agrees.
            let asLib = try CommandRunner.run(shell, flags + [setVariable + "lib status --prompt"],
                                              environment: environment.merging(["PATH": BuiltProducts.directory.path + ":/usr/bin:/bin"]) { $1 })
            #expect(asLib.stdout == "alice +1 | +2\n", "\(shell): \(asLib)")
        }
    }

    /// What bash, zsh and fish show (each with only its own built-ins), and
    /// what starship shows (its module runs `lib status --prompt` under sh).
    func promptsOfEveryShell(_ lib: LibHarness, locale: String) throws -> [String: String] {
        let scripts = [
            ("bash", "/bin/bash", ["--norc", "--noprofile", "-i", "-c",
                "PS1='$ '; . \(snippets)/lib-prompt.bash; eval \"$PROMPT_COMMAND\"; echo \"${PS1@P}\""]),
            ("zsh", "/usr/bin/zsh", ["-f", "-c",
                "PROMPT='$ '; source \(snippets)/lib-prompt.zsh; __lib_prompt_update; print -rP -- \"$PROMPT\""]),
            ("fish", "/usr/bin/fish", ["--no-config", "-c",
                "function fish_prompt; echo -n '$ '; end; source \(snippets)/lib-prompt.fish; fish_prompt; echo"]),
        ]
        var shown: [String: String] = [:]
        for (name, shell, arguments) in scripts {
            let (result, programs) = try tracedShell(lib, shell, arguments, locale: locale)
            #expect(programs == [(shell as NSString).lastPathComponent], "\(name) started \(programs)")
            shown[name] = result.stdout
        }
        var environment = lib.environment
        environment["PATH"] = BuiltProducts.directory.path + ":/usr/bin:/bin"
        environment["LANG"] = locale
        let starship = try CommandRunner.run("/bin/sh", ["-c", "lib status --prompt"], environment: environment)
        shown["starship"] = "(" + starship.stdout.dropLast() + ") $ \n"
        return shown
    }

    /// alice on two servers and bob, each with writes waiting: the default
    /// segment is the current account's short name and counts, and what
    /// waits in the other two added up: at most 30 characters (it was 62,
    /// wrapping at 40 columns), the same in every shell.
    @Test func twoServersAndTwoUsersFitInThirtyCharacters() throws {
        let one = try startDemoServer(), two = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: one)
        try device.login("alice", to: two)
        try device.login("alice", to: one)
        #expect(try device.lib("edit", "books/x-1", "--create", "title=A").status == 0)
        #expect(try device.lib("-A", device.account("alice", on: two), "edit", "books/x-2", "--create", "title=B").status == 0)
        #expect(try device.lib("-A", device.account("bob", on: one), "edit", "books/x-3", "--create", "title=C").status == 0)
        #expect(try device.lib("-A", device.account("bob", on: one), "edit", "books/x-4", "--create", "title=D").status == 0)
        for (locale, expected) in [("C.UTF-8", "alice@:\(one.port) ↑1 · ↑3"), ("C", "alice@:\(one.port) +1 | +3")] {
            #expect(expected.count <= 30, "\(expected)")
            for (shell, line) in try promptsOfEveryShell(device, locale: locale) {
                #expect(line == "(\(expected)) $ \n", "\(shell), \(locale): \(line)")
            }
        }
    }

    /// An alias set at login or with `lib switch` is what every prompt
    /// shows, and what -A takes.
    @Test func anAliasShowsInEveryShellAlike() throws {
        let one = try startDemoServer(), two = try startDemoServer()
        let device = try LibHarness()
        #expect(try device.lib("login", two.baseURL, "--user", "alice", "--alias", "test", "--password-stdin",
                               stdin: "alice-demo\n").status == 0)
        try device.login("alice", to: one)
        #expect(try device.lib("-A", "test", "edit", "books/x-1", "--create", "title=A").status == 0, "-A takes the alias")
        #expect(try device.lib("edit", "books/x-2", "--create", "title=B").status == 0)
        let switched = try device.lib("switch", device.account("alice", on: one), "--alias", "home")
        #expect(switched.stdout == "Switched to \(device.account("alice", on: one)) (alias home).\n", "\(switched)")
        for (shell, line) in try promptsOfEveryShell(device, locale: "C.UTF-8") {
            #expect(line == "(home ↑1 · ↑1) $ \n", "\(shell): \(line)")
        }
        #expect(try device.lib("switch", "test").status == 0)
        for (shell, line) in try promptsOfEveryShell(device, locale: "C") {
            #expect(line == "(test +1 | +1) $ \n", "\(shell): \(line)")
        }
        let taken = try device.lib("switch", "home", "--alias", "test")
        #expect(taken.status == 1 && taken.stderr.contains("The alias 'test' already names \(device.account("alice", on: two))"), "\(taken)")
        let invalid = try device.lib("switch", "home", "--alias", "a@b")
        #expect(invalid.status == 2, "\(invalid)")
        let list = try device.lib("switch")
        #expect(list.stdout.contains("  \(device.account("alice", on: one)) (home)"), "\(list)")
    }

    /// A prompt file lib would never write (lib escapes names, and checks
    /// them at login), planted by hand: the snippets in real shells still
    /// show no control character, obey no zsh `%` code and evaluate nothing
    /// (issue 23).
    @Test func theSnippetsShowAHostileSegmentInertInRealShells() throws {
        let lib = try LibHarness()
        let directory = lib.home.path + "/data/accounts/x@h"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: lib.home.path + "/config", withIntermediateDirectories: true)
        try "x@h\n".write(toFile: lib.home.path + "/config/current", atomically: true, encoding: .utf8)
        let planted = lib.home.file("planted")
        let hostile = "a\u{1B}]0;owned\u{07}%F{red}x\u{9B}2J\u{202E}$(touch \(planted))`touch \(planted)` ↑1"
        try "\(hostile)\n\(hostile)\n".write(toFile: directory + "/prompt", atomically: true, encoding: .utf8)
        for locale in ["C.UTF-8", "C"] {
            let expected = Self.inert(hostile, unicode: locale == "C.UTF-8")
            #expect(expected.hasPrefix("a?]0?owned?%F{red}x?") && !expected.contains("$("), "\(expected)")
            let (bash, _) = try tracedShell(lib, "/bin/bash", ["--norc", "--noprofile", "-i", "-c",
                "PS1='$ '; . \(snippets)/lib-prompt.bash; eval \"$PROMPT_COMMAND\"; echo \"${PS1@P}\""], locale: locale)
            #expect(bash.stdout == "(\(expected)) $ \n", "bash, \(locale): \(bash.stdout.debugDescription)")
            let (zsh, _) = try tracedShell(lib, "/usr/bin/zsh", ["-f", "-c",
                "PROMPT='$ '; source \(snippets)/lib-prompt.zsh; __lib_prompt_update; print -rP -- \"$PROMPT\""], locale: locale)
            #expect(zsh.stdout == "(\(expected)) $ \n", "zsh, \(locale): \(zsh.stdout.debugDescription)")
            let (fish, _) = try tracedShell(lib, "/usr/bin/fish", ["--no-config", "-c",
                "function fish_prompt; echo -n '$ '; end; source \(snippets)/lib-prompt.fish; fish_prompt; echo"], locale: locale)
            #expect(!fish.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E },
                    "fish, \(locale): \(fish.stdout.debugDescription)")
            #expect(fish.stdout.hasPrefix("(a?]0?owned?%F{red}x"), "fish, \(locale): \(fish.stdout.debugDescription)")
        }
        #expect(!FileManager.default.fileExists(atPath: planted), "a prompt evaluated the segment")
    }

    /// What the snippets show of a segment: the characters segments are made
    /// of, every other one (in the C locale, every other byte) as "?".
    static func inert(_ segment: String, unicode: Bool) -> String {
        let kept = Set(" @:.{}%_\\+=~[]-".unicodeScalars)
        if unicode {
            return String(String.UnicodeScalarView(segment.unicodeScalars.map { scalar in
                scalar.properties.isAlphabetic || scalar.properties.numericType != nil || kept.contains(scalar)
                    || "↑≠✗⊘".unicodeScalars.contains(scalar) ? scalar : "?"
            }))
        }
        return String(segment.utf8.map { byte in
            let scalar = Unicode.Scalar(byte)
            return byte < 0x80 && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || kept.contains(scalar)) ? Character(scalar) : "?"
        })
    }

    /// The locale is read as the C library reads it: LC_ALL, then LC_CTYPE,
    /// then LANG, the first that is not empty; UTF-8 when its codeset is.
    @Test func statusPromptPicksItsFormFromTheLocale() throws {
        let (alice, _server) = try aliceWithWork()
        let unicode = "alice ↑2 ≠1\n", ascii = "alice +2 =1\n"
        let cases: [(all: String, ctype: String, lang: String, expected: String)] = [
            ("", "", "en_US.UTF-8", unicode), ("", "", "de_DE.utf8@euro", unicode), ("", "", "C", ascii),
            ("", "", "", ascii), ("", "", "en_US.ISO-8859-1", ascii), ("", "", "en_US", ascii),
            ("", "C.UTF-8", "C", unicode), ("C", "C.UTF-8", "en_US.UTF-8", ascii), ("fr_FR.Utf-8", "C", "C", unicode),
        ]
        for (all, ctype, lang, expected) in cases {
            let result = try alice.lib("status", "--prompt", environment: ["LC_ALL": all, "LC_CTYPE": ctype, "LANG": lang])
            #expect(result.status == 0)
            #expect(result.stdout == expected, "LC_ALL=\(all) LC_CTYPE=\(ctype) LANG=\(lang)")
        }
        _ = _server
    }

    @Test func aMissingFileIsAskedOfLibOnceAndWrittenAgain() throws {
        let (alice, server) = try aliceWithWork()
        let file = promptFile(alice, alice.account("alice", on: server))
        unlink(file)
        let (result, programs) = try tracedShell(alice, "/bin/bash", ["--norc", "--noprofile", "-c",
            ". \(snippets)/lib-prompt.bash; __lib_prompt_update; echo \"$LIB_PROMPT\""], locale: "C.UTF-8")
        #expect(result.stdout == "alice ↑2 ≠1\n", "\(result)")
        #expect(programs == ["bash", "lib"], "only lib status --prompt, once: \(programs)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "alice ↑2 ≠1\nalice +2 =1\nalice\nalice\n")
    }

    @Test func nothingToSayIsAnEmptyFileAndAnEmptyPrompt() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try String(contentsOfFile: promptFile(alice, alice.account("alice", on: server)), encoding: .utf8) == "\n\nalice\nalice\n",
                "empty segments, then the name alone")
        let (result, programs) = try tracedShell(alice, "/bin/bash", ["--norc", "--noprofile", "-c",
            "PS1='$ '; . \(snippets)/lib-prompt.bash; __lib_prompt_update; echo \"${PS1@P}\""], locale: "C.UTF-8")
        #expect(result.stdout == "$ \n", "\(result)")
        #expect(programs == ["bash"], "\(programs)")
    }

    /// SIGKILL at the Nth write of an edit (SQLite's pwrite64s, its fsyncs,
    /// the prompt file's rename), for N = 1, 2, ... until the edit runs to
    /// its end: after each, the prompt file is absent or shows exactly what
    /// the store holds, and the next command writes a missing one again.
    @Test func killedEditsNeverLeaveAWrongPromptFile() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let file = promptFile(alice, account)
        var kills = 0
        for call in ["pwrite64", "fdatasync", "fsync", "rename"] {
            for n in 1...60 {
                let edit = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null",
                    "--inject=\(call):signal=SIGKILL:when=\(n)", BuiltProducts.path("lib"), "edit", "books/b-\(100 + n)", "--create", "title=T\(n)"],
                    environment: alice.environment)
                let pending = Int(try alice.sql(account, "SELECT n FROM outbox_counts WHERE status = 'pending'")
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
                if access(file, F_OK) == 0 {
                    let shown = try String(contentsOfFile: file, encoding: .utf8)
                    let expected = (pending == 0 ? "\n\n" : "alice ↑\(pending)\nalice +\(pending)\n") + "alice\nalice\n"
                    #expect(shown == expected, "killed at \(call) #\(n): the file says \(shown.debugDescription), the store has \(pending) pending\n\(edit)")
                }
                if edit.status == 0 { break }
                kills += 1
                #expect(edit.status == 9 || edit.status == 137, "killed by SIGKILL: \(edit)")
                // The next command that opens the store writes a missing file, right.
                #expect(try alice.lib("status").status == 0)
                let rewritten = try String(contentsOfFile: file, encoding: .utf8)
                #expect(rewritten == (pending == 0 ? "\n\n" : "alice ↑\(pending)\nalice +\(pending)\n") + "alice\nalice\n", "after \(call) #\(n)")
            }
        }
        #expect(kills > 4, "the edit was killed at \(kills) points")
    }
}
