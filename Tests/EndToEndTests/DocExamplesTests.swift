import Foundation
import Testing
import TestSupport

/// One source for what the docs show (issue 24): every `$ lib …` line of
/// README's tour runs, in order, against a demo server on a fresh device,
/// and each output line the README shows must come out (the server's
/// address put in for 127.0.0.1:8080). A change in what lib prints fails
/// here until the README says it too.
@Suite struct DocExamplesTests {
    struct Example: CustomStringConvertible {
        var command: String
        var comment: String
        var output: [String]
        var description: String { "$ \(command)" }
    }

    /// The `$ …` lines of the README's ```sh blocks between "## A short
    /// tour" and the next section, each with the lines it shows after it.
    static func tour() throws -> [Example] {
        let readme = try String(contentsOfFile: repositoryRoot() + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "\n## A short tour\n") else { return [] }
        var examples: [Example] = []
        var inBlock = false
        // What an output line belongs to: the last `$` line of this block.
        var current: Int?
        for line in readme[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inBlock = line == "```sh"; current = nil; continue }
            if line.hasPrefix("## ") && !inBlock { break }
            guard inBlock else { continue }
            if line.hasPrefix("$ ") {
                let text = String(line.dropFirst(2))
                let parts = text.components(separatedBy: " # ")
                examples.append(Example(command: parts[0].trimmingCharacters(in: .whitespaces),
                                        comment: parts.dropFirst().joined(separator: " # "), output: []))
                current = examples.count - 1
            } else if let current, !line.isEmpty {
                examples[current].output.append(line)
            }
        }
        return examples
    }

    @Test func readmesTourRunsAsShown() throws {
        let examples = try Self.tour()
        #expect(examples.filter { $0.command.hasPrefix("lib ") }.count >= 10, "the tour was found: \(examples)")
        #expect(examples.contains { $0.command == "lib push" }, "\(examples)")
        var server = try startDemoServer()
        let lib = try LibHarness()
        let address = "127.0.0.1:\(server.port)"
        let scripts = try TemporaryDirectory("lib-e2e-docs")
        try writeScript(scripts.file("lib"), "exec \(BuiltProducts.path("lib")) \"$@\"\n")
        for example in examples where example.command.hasPrefix("lib ") {
            var command = example.command.replacingOccurrences(of: "127.0.0.1:8080", with: address)
            var expected = example.output.map { $0.replacingOccurrences(of: "127.0.0.1:8080", with: address) }
            var stdin = ""
            if command.hasPrefix("lib login ") {
                // The tour types the password at the prompt; the test gives it on stdin.
                command += " --password-stdin"
                stdin = "alice-demo\n"
                expected.removeAll { $0.hasPrefix("Password for") }
            }
            let serverDown = example.comment.contains("server down")
            if serverDown {
                server.stop()
                // "3 hours ago", as the README shows it: the copy and the
                // `lib get books` that confirmed it (a pull) both that old.
                let account = lib.account("alice", on: server)
                _ = try CommandRunner.run("/usr/bin/sqlite3", [lib.home.path + "/data/accounts/\(account)/store.sqlite",
                                                               "UPDATE documents SET validated_at = validated_at - 10800; UPDATE collections SET fetched_at = fetched_at - 10800"])
            }
            var environment = lib.environment
            environment["PATH"] = scripts.path + ":/usr/bin:/bin"
            environment["EDITOR"] = "true"
            environment["VISUAL"] = ""
            environment["LANG"] = "C.UTF-8"
            let run = try CommandRunner.run("/bin/sh", ["-c", command], environment: environment, stdin: stdin)
            // The server comes back for what follows.
            if serverDown { server = try server.restarted() }
            let lines = (run.stdout + run.stderr).split(separator: "\n").map(String.init)
            var remaining = lines[...]
            for line in expected {
                guard let found = remaining.firstIndex(of: line) else {
                    Issue.record("\(example): README shows '\(line)'; lib printed:\n\(run)")
                    break
                }
                remaining = remaining[(found + 1)...]
            }
        }
    }

    /// docs/CLI.md's `lib status --porcelain` sample, made for real: the
    /// same lines, numbers aside.
    @Test func cliMdsPorcelainSampleIsWhatLibPrints() throws {
        let doc = try String(contentsOfFile: repositoryRoot() + "/docs/CLI.md", encoding: .utf8)
        guard let start = doc.range(of: "```\naccount alice@127.0.0.1:8080\n"),
              let end = doc[start.upperBound...].range(of: "```") else {
            Issue.record("the porcelain sample was not found in docs/CLI.md"); return
        }
        let sample = ["account alice@127.0.0.1:8080"] + doc[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)

        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7", "books/b-8", "books/b-9"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        #expect(try alice.lib("edit", "books/b-9", "copies:=2").status == 0)
        #expect(try bob.lib("edit", "books/b-9", "copies:=3", "--push").status == 0)
        #expect(try alice.lib("push").status == 3)
        #expect(try alice.lib("edit", "books/b-7", "title=Dune (2nd edition)", "year:=1966").status == 0)
        #expect(try alice.lib("edit", "books/b-8", "--delete").status == 0)
        let porcelain = try alice.lib("status", "--porcelain")
        #expect(porcelain.status == 0, "\(porcelain)")
        func shape(_ line: String) -> String {
            line.replacingOccurrences(of: "127.0.0.1:\(server.port)", with: "127.0.0.1:8080")
                .replacingOccurrences(of: "[0-9]+", with: "#", options: .regularExpression)
        }
        let printed = porcelain.stdout.split(separator: "\n").map { shape(String($0)) }
        #expect(printed == sample.map(shape), "docs/CLI.md shows:\n\(sample.joined(separator: "\n"))\nlib printed:\n\(porcelain.stdout)")
    }
}
