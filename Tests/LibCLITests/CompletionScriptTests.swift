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

    /// The candidates the shell offers for `line` (the cursor at its end).
    func bashCandidates(_ line: String) throws -> [String] {
        let harness = home.file("complete.bash")
        try #"""
            source "$1"
            # bash's default, which splits user@host:port at '@' and ':'.
            COMP_WORDBREAKS=$' \t\n"\'@><=;|&(:'
            COMP_LINE=$2
            COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<<"$COMP_LINE"
            [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=('')
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _lib
            printf '%s\n' "${COMPREPLY[@]}"
            """#.write(toFile: harness, atomically: true, encoding: .utf8)
        let script = Repository.root.appendingPathComponent("completions/lib.bash").path
        let result = try CommandRunner.run(
            "/bin/bash", ["--norc", "--noprofile", harness, script, line], environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The matches zsh's `_arguments` machinery adds for `line` + TAB, in an
    /// interactive `zsh -f` on a pseudo-terminal (zpty), with `_lib` autoloaded
    /// from completions/ by compinit, recording every `compadd`.
    func zshCandidates(_ line: String) throws -> [String] {
        let output = home.file("zsh-matches")
        try? FileManager.default.removeItem(atPath: output)
        let harness = home.file("complete.zsh")
        try #"""
            zmodload zsh/zpty || exit 3
            local dir=$1 out=$2 line=$3
            zpty z zsh -f -i
            zpty -w z "PS1=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
            zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
            zpty -w z "compadd() { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi; local -a __hits; builtin compadd -A __hits \"\$@\"; print -rl -- \$__hits >> ${(q)out}; builtin compadd \"\$@\"; }"
            zpty -w z "_lib_test_done() { print -r -- '<done>' >> ${(q)out} }; comppostfuncs=(_lib_test_done)"
            zpty -w -n z "$line"$'\t'
            integer tries=0
            while (( tries++ < 400 )); do
              [[ -f $out ]] && grep -q '<done>' $out && break
              zpty -r -t z junk 2>/dev/null
              sleep 0.05
            done
            zpty -d z
            """#.write(toFile: harness, atomically: true, encoding: .utf8)
        let completions = Repository.root.appendingPathComponent("completions").path
        let result = try CommandRunner.run("/usr/bin/zsh", ["-f", harness, completions, output, line], environment: environment)
        let matches = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(matches.contains("<done>"), "zsh never finished completing '\(line)': \(result)")
        return matches.split(separator: "\n").map(String.init).filter { !$0.isEmpty && $0 != "<done>" }
    }

    /// What `complete -C` offers, without the descriptions.
    func fishCandidates(_ line: String) throws -> [String] {
        let script = Repository.root.appendingPathComponent("completions/lib.fish").path
        let result = try CommandRunner.run(
            "/usr/bin/fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line],
            environment: environment)
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
