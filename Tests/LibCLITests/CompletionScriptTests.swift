import Foundation
import LibCLI
import TestSupport
import Testing

/// Drives each shell's real completion machinery with the checked-in script
/// and the built `lib` (for `lib __complete`), from a LIB_HOME with two accounts.
struct CompletionScriptTests {
    let home: TemporaryDirectory
    let environment: [String: String]

    init() throws {
        home = try TemporaryDirectory("lib-completion")
        try FileManager.default.createDirectory(atPath: home.file("config"), withIntermediateDirectories: true)
        // The accounts index as lib writes it: name, server, user id, user name.
        try "alice@127.0.0.1:8080\thttp://127.0.0.1:8080\tu-1\talice\nbob@127.0.0.1:8080\thttp://127.0.0.1:8080\tu-2\tbob\n"
            .write(toFile: home.file("config/accounts"), atomically: true, encoding: .utf8)
        chmod(home.file("config/accounts"), 0o600)
        chmod(home.file("config"), 0o700)
        environment = environmentForBuiltLib(home: home.path)
    }

    var completions: String { Repository.root.appendingPathComponent("completions").path }

    /// The candidates the shell offers for `line` (the cursor at its end).
    func bashCandidates(_ line: String) throws -> [String] {
        let result = try ShellCompletions.bash(line, completions: completions, scratch: home, environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The matches zsh's `_arguments` machinery adds for `line` + TAB.
    func zshCandidates(_ line: String) throws -> [String] {
        let (matches, result) = try ShellCompletions.zsh(line, completions: completions, scratch: home, environment: environment)
        #expect(matches != nil, "zsh never finished completing '\(line)': \(result)")
        return matches ?? []
    }

    /// What `complete -C` offers, without the descriptions.
    func fishCandidates(_ line: String) throws -> [String] {
        let result = try ShellCompletions.fish(line, completions: completions, environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    static let accounts = ["alice@127.0.0.1:8080", "bob@127.0.0.1:8080"]

    @Test func bashCompletesCommandsFlagsAndAccounts() throws {
        #expect(try bashCandidates("lib st") == ["status"])
        #expect(try bashCandidates("lib push --w") == ["--wait", "--watch"])
        #expect(try bashCandidates("lib -A ") == Self.accounts)
        #expect(try bashCandidates("lib -qA ") == Self.accounts)
        #expect(try bashCandidates("lib --account=b") == ["bob@127.0.0.1:8080"])
        // Readline keeps what precedes the last ':' of the word, so only the rest is offered.
        #expect(try bashCandidates("lib -A alice@127.0.0.1:80") == ["8080"])
        #expect(try bashCandidates("lib logout ") == Self.accounts)
        #expect(try bashCandidates("lib -A alice st") == ["status"])
        #expect(try bashCandidates("lib completion ") == ["bash", "zsh", "fish"])
        #expect(try bashCandidates("lib help lo") == ["login", "logout", "log"])
        #expect(try bashCandidates("lib get books/b-7 --of") == ["--offline"])
        #expect(try bashCandidates("lib get books/b-7 --js") == ["--json"])
        #expect(try bashCandidates("lib push --wait ") == [])
        #expect(try bashCandidates("lib --js") == ["--json"])
    }

    @Test(.enabled(if: isInstalled("/usr/bin/zsh")))
    func zshCompletesCommandsFlagsAndAccounts() throws {
        #expect(try zshCandidates("lib st") == ["status"])
        #expect(Set(try zshCandidates("lib push --w")) == ["--wait", "--watch"])
        #expect(Set(try zshCandidates("lib -A ")) == Set(Self.accounts))
        #expect(Set(try zshCandidates("lib completion ")) == ["bash", "zsh", "fish"])
        // --offline and --fresh exclude each other.
        // The command's options, then the global ones, which may follow the command too.
        #expect(Set(try zshCandidates("lib get books/b-7 --offline --")) == [
            "--timeout", "--help", "--account", "--json", "--quiet", "--verbose", "--no-color",
        ])
    }

    @Test(.enabled(if: isInstalled("/usr/bin/fish")))
    func fishCompletesCommandsFlagsAndAccounts() throws {
        #expect(try fishCandidates("lib st") == ["status"])
        #expect(try fishCandidates("lib push --w") == ["--wait", "--watch"])
        #expect(try fishCandidates("lib -A ") == Self.accounts)
        #expect(try fishCandidates("lib logout ") == Self.accounts)
        #expect(try fishCandidates("lib completion ") == ["bash", "fish", "zsh"])
        #expect(try fishCandidates("lib get books/b-7 --offline --") == [
            "--account", "--help", "--json", "--no-color", "--offline", "--quiet", "--timeout", "--verbose",
        ])
    }

    @Test func completeCommandListsAccountsFromTheIndex() throws {
        let result = try CommandRunner.run(BuiltProducts.path("lib"), ["__complete", "accounts"], environment: environment)
        #expect(result.status == 0 && result.stdout == Self.accounts.joined(separator: "\n") + "\n", "\(result)")
        let prefixed = try CommandRunner.run(BuiltProducts.path("lib"), ["__complete", "accounts", "bo"], environment: environment)
        #expect(prefixed.stdout == "bob@127.0.0.1:8080\n", "\(prefixed)")
        let paths = try CommandRunner.run(BuiltProducts.path("lib"), ["__complete", "paths", "bo"], environment: environment)
        #expect(paths.status == 0 && paths.stdout.isEmpty && paths.stderr.isEmpty, "\(paths)")
    }
}
