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
        let harness = lib.home.file("complete.bash")
        try #"""
            source "$1"
            COMP_WORDBREAKS=$' \t\n"\'@><=;|&(:'
            COMP_LINE=$2
            COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<<"$COMP_LINE"
            [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=('')
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _lib
            printf '%s\n' "${COMPREPLY[@]}"
            """#.write(toFile: harness, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run("/bin/bash", ["--norc", "--noprofile", harness, repositoryRoot() + "/completions/lib.bash", line],
                                           environment: environment(lib))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// What fish's `complete -C` offers for `line`, each with its description.
    func fish(_ lib: LibHarness, _ line: String) throws -> [String] {
        let result = try CommandRunner.run("/usr/bin/fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]",
                                                             repositoryRoot() + "/completions/lib.fish", line], environment: environment(lib))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
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

    @Test func fishShowsEachBooksTitle() throws {
        let (alice, server) = try aliceWithAConflictAndAPush()
        #expect(try fish(alice, "lib resolve ") == ["books/b-8\tBeloved"])
        #expect(try fish(alice, "lib revert ") == ["books/b-7\tDune"])
        let get = try fish(alice, "lib get books/b-1")
        #expect(get.contains("books/b-1\tPride and Prejudice") && get.contains("books/b-15\tThe Remains of the Day"), "\(get)")
        _ = server
    }
}
