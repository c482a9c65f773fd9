/// `lib logout [ACCOUNT] [--discard] [--yes]`
public enum LogoutSyntax: CommandSyntax {
    public static let name = "logout"

    public static let account = ArgumentSpec(
        "ACCOUNT", .account, .optional, "The account to sign out of (default: the current one)")
    public static let discard = OptionSpec.flag(
        "discard", "Delete unsent writes instead of setting them aside")
    public static let yes = OptionSpec.flag(
        "yes", "Do not ask before discarding unsent writes")

    public static let command = CommandSpec(
        name: name,
        summary: "Sign out; set unsent writes aside",
        discussion: """
            Revokes the token on the server (best effort), removes it from the \
            keyring and deletes the account's cache.

            Writes not sent yet are set aside, and restored only when the same \
            user signs in to the same server again; they are never sent under \
            another account. --discard deletes them instead, after asking on a \
            terminal unless --yes is given.
            """,
        arguments: [account],
        options: [discard, yes],
        examples: [
            .init("lib logout", "Sign out of the current account."),
            .init("lib logout bob --discard --yes", "Sign out of bob's account and drop its unsent writes."),
        ],
        exitStatuses: [
            .init(.success, "Signed out."), .init(.failure), .init(.usage),
            .init(.authentication, "The keyring is absent, locked or refused."),
        ])
}
