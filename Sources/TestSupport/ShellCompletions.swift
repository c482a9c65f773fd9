import Foundation

/// Drives each shell's real completion machinery with the checked-in scripts
/// in completions/ for a line typed with the cursor at its end; the scripts
/// run `lib __complete` from the PATH in `environment`.
public enum ShellCompletions {
    /// bash: COMPREPLY after `_lib`, one candidate a line. COMP_LINE holds
    /// the line as typed, assignments before `lib` included.
    public static func bash(_ line: String, completions: String, scratch: TemporaryDirectory,
                            environment: [String: String]) throws -> CommandResult {
        let harness = scratch.file("complete.bash")
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
        return try CommandRunner.run("/bin/bash", ["--norc", "--noprofile", harness, completions + "/lib.bash", line],
                                     environment: environment)
    }

    /// zsh: every match `_arguments` adds for `line` + TAB, in an interactive
    /// `zsh -f` on a pseudo-terminal (zpty), with `_lib` autoloaded from
    /// completions/ by compinit, recording every `compadd`; nil when zsh
    /// never finished completing.
    public static func zsh(_ line: String, completions: String, scratch: TemporaryDirectory,
                           environment: [String: String]) throws -> (matches: [String]?, result: CommandResult) {
        let output = scratch.file("zsh-matches")
        try? FileManager.default.removeItem(atPath: output)
        let harness = scratch.file("complete.zsh")
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
        let result = try CommandRunner.run("/usr/bin/zsh", ["-f", harness, completions, output, line], environment: environment)
        let matches = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard matches.contains("<done>") else { return (nil, result) }
        return (matches.split(separator: "\n").map(String.init).filter { !$0.isEmpty && $0 != "<done>" }, result)
    }

    /// fish: what `complete -C` offers, each candidate with its description
    /// after a tab.
    public static func fish(_ line: String, completions: String, environment: [String: String]) throws -> CommandResult {
        try CommandRunner.run("/usr/bin/fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]",
                                                completions + "/lib.fish", line], environment: environment)
    }
}
