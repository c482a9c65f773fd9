import Foundation
import Testing
import TestSupport

/// Completion knows the command (issue 37): `resolve` offers the documents
/// with a conflict and `revert` those this device pushed (not the 20 cached
/// ones), `get` offers the collection `books`, `edit PATH` never offers
/// `id=`, and fish shows each book's title next to its path.
@Suite struct CompletionContextTests {
    /// alice: b-7 pushed, b-8 in conflict (bob pushed it first), all 20 books cached.
    func aliceWithAConflictAndAPush() throws -> (LibHarness, ServerProcess) {
        let server = try startDemoServer()
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: server)
        try bob.login("bob", to: server)
        #expect(try alice.lib("get", "books").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "copies:=5", "--push").status == 0)
        #expect(try bob.lib("edit", "books/b-8", "copies:=11", "--push").status == 0)
        #expect(try alice.lib("edit", "books/b-8", "copies:=12").status == 0)
        #expect(try alice.lib("push").status == 3, "a conflict")
        return (alice, server)
    }

    func environment(_ lib: LibHarness) -> [String: String] {
        var environment = lib.environment
        environment["PATH"] = BuiltProducts.directory.path + ":/usr/bin:/bin"
        return environment
    }

    /// What bash's completion offers for `line`, the cursor at its end.
    func bash(_ lib: LibHarness, _ line: String) throws -> [String] {
        let result = try ShellCompletions.bash(line, completions: repositoryRoot() + "/completions", scratch: lib.home,
                                               environment: environment(lib))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// What fish's `complete -C` offers for `line`, each with its description.
    func fish(_ lib: LibHarness, _ line: String) throws -> [String] {
        let result = try ShellCompletions.fish(line, completions: repositoryRoot() + "/completions", environment: environment(lib))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The matches zsh adds for `line` + TAB.
    func zsh(_ lib: LibHarness, _ line: String) throws -> [String] {
        let (matches, result) = try ShellCompletions.zsh(line, completions: repositoryRoot() + "/completions", scratch: lib.home,
                                                         environment: environment(lib))
        #expect(matches != nil, "zsh never finished completing '\(line)': \(result)")
        return matches ?? []
    }

    @Test func eachCommandOffersThePathsItTakes() throws {
        let (alice, server) = try aliceWithAConflictAndAPush()
        #expect(try bash(alice, "lib resolve ") == ["books/b-8"], "the conflict, not the 20 cached books")
        #expect(try bash(alice, "lib revert ") == ["books/b-7"], "the pushed write")
        #expect(try bash(alice, "lib get b").first == "books", "the collection, then its books")
        #expect(try bash(alice, "lib get b").count == 21)
        let fields = try bash(alice, "lib edit books/b-7 ")
        #expect(fields.contains("title=") && !fields.contains("id=") && !fields.contains("id:="), "\(fields)")
        let plain = try CommandRunner.run(BuiltProducts.path("lib"), ["__complete", "conflicts"], environment: alice.environment)
        #expect(plain.stdout == "books/b-8\n", "\(plain)")
        _ = server
    }

    /// The account typed on the line chooses whose paths are offered, as it
    /// would choose the account the command acts on (issue 49): `-A`,
    /// `--account`, `--account=` and a `LIB_ACCOUNT=` assignment before
    /// `lib`; and accounts are offered by alias too.
    @Test func theAccountOnTheLineChoosesWhosePathsAreOffered() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        #expect(try lib.lib("login", server.baseURL, "--user", "alice", "--password-stdin", "--alias", "home", stdin: "alice-demo\n").status == 0)
        #expect(try lib.lib("pull").status == 0, "alice has the 20 books; bob, current, has none")
        try lib.login("bob", to: server)
        let twelve = ["books/b-12"]
        #expect(try bash(lib, "lib get books/b-12") == [], "bob's offline library is empty")
        for line in ["lib -A home get books/b-12", "lib --account home get books/b-12", "lib --account=home get books/b-12",
                     "lib get -A alice books/b-12", "LIB_ACCOUNT=home lib get books/b-12", "LIB_ACCOUNT=bob lib -A home get books/b-12"] {
            #expect(try bash(lib, line) == twelve, "bash: \(line)")
            #expect(try fish(lib, line).map { String($0.prefix { $0 != "\t" }) } == twelve, "fish: \(line)")
            #expect(try zsh(lib, line) == twelve, "zsh: \(line)")
        }
        #expect(try bash(lib, "LIB_ACCOUNT=home lib -A bob get books/b-12") == [], "-A wins over LIB_ACCOUNT")
        #expect(try bash(lib, "lib -A h") == ["home"], "the alias")
        #expect(try bash(lib, "lib -A ") == ["alice@127.0.0.1:\(server.port)", "home", "bob@127.0.0.1:\(server.port)"])
    }

    @Test func fishShowsEachBooksTitle() throws {
        let (alice, server) = try aliceWithAConflictAndAPush()
        #expect(try fish(alice, "lib resolve ") == ["books/b-8\tBeloved"])
        #expect(try fish(alice, "lib revert ") == ["books/b-7\tDune"])
        let get = try fish(alice, "lib get books/b-1")
        #expect(get.contains("books/b-1\tPride and Prejudice") && get.contains("books/b-15\tThe Remains of the Day"), "\(get)")
        _ = server
    }
}
