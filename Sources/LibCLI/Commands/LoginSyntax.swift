/// `lib login [SERVER_URL] [--user NAME] [--password-stdin | --token-stdin] [--restore | --no-restore]`
public enum LoginSyntax: CommandSyntax {
    public static let name = "login"

    public static let serverURL = ArgumentSpec(
        "SERVER_URL", .text, .optional, "The server, such as https://library.example.org")
    public static let user = OptionSpec.option(
        "user", value: "NAME", .text, "Sign in as NAME (asked on a terminal if missing)")
    public static let passwordStdin = OptionSpec.flag(
        "password-stdin", "Read the password from standard input",
        details: "Without it, the password is prompted for on the terminal, without echo.")
    public static let tokenStdin = OptionSpec.flag(
        "token-stdin", "Read an existing token from standard input",
        details: "The token is checked with the server before it is stored.")
    public static let restore = OptionSpec.flag(
        "restore", "Restore writes set aside at the last logout")
    public static let noRestore = OptionSpec.flag(
        "no-restore", "Do not restore writes set aside at the last logout")

    public static let command = CommandSpec(
        name: name,
        summary: "Sign in to a server; keep the token in the keyring",
        discussion: """
            Exchanges a password for a token (or stores a token given with \
            --token-stdin), then asks the server who you are. The account is \
            named user@host[:port] and becomes the current account.

            The token is kept only in the Secret Service keyring, never on \
            disk. When no keyring can be reached, login says how to fix that \
            and exits 4; there is no plain-text fallback.

            Writes set aside when this user last signed out of this server are \
            restored: login asks on a terminal, and otherwise follows \
            --restore or --no-restore (the default is to leave them aside).
            """,
        arguments: [serverURL],
        options: [user, passwordStdin, tokenStdin, restore, noRestore],
        exclusiveGroups: [[passwordStdin.name, tokenStdin.name], [restore.name, noRestore.name]],
        examples: [
            .init("lib login https://library.example.org --user alice", "Sign in; the password is asked for."),
            .init("lib login http://127.0.0.1:8080 --user alice --password-stdin <pw.txt",
                  "Sign in with a password read from a file."),
        ],
        exitStatuses: [
            .init(.success, "Signed in."), .init(.failure), .init(.usage),
            .init(.authentication, "Wrong password or token, or no usable keyring."),
            .init(.temporaryFailure),
        ])
}
