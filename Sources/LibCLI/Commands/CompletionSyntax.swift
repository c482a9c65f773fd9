/// `lib completion bash|zsh|fish`
public enum CompletionSyntax: CommandSyntax {
    public static let name = "completion"

    public static let shell = ArgumentSpec(
        "SHELL", .choice(Shell.allCases.map(\.rawValue)), .required, "The shell to print the script for")

    public static let command = CommandSpec(
        name: name,
        summary: "Print a shell completion script",
        discussion: """
            Prints the completion script for SHELL. It completes commands, \
            options, account names and cached resource paths; the values come \
            from this device, never from the network or the keyring.

            Installed copies live in share/bash-completion/completions/lib, \
            share/zsh/site-functions/_lib and \
            share/fish/vendor_completions.d/lib.fish.
            """,
        arguments: [shell],
        examples: [
            .init("source <(lib completion bash)", "Try the completions in this bash."),
            .init("lib completion fish >~/.config/fish/completions/lib.fish", "Install them for fish."),
        ],
        exitStatuses: [.init(.success), .init(.usage)])
}
