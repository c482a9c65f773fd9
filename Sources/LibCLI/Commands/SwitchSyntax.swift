/// `lib switch [ACCOUNT]`
public enum SwitchSyntax: CommandSyntax {
    public static let name = "switch"

    public static let account = ArgumentSpec(
        "ACCOUNT", .account, .optional, "The account to make current")

    public static let command = CommandSpec(
        name: name,
        summary: "Choose the current account, or list accounts",
        discussion: """
            With ACCOUNT, makes it the current account: the one commands act on \
            when neither -A nor LIB_ACCOUNT names another. ACCOUNT is \
            user@host[:port] or any unambiguous prefix of it, such as alice.

            Without ACCOUNT, lists the signed-in accounts and marks the current one.
            """,
        arguments: [account],
        examples: [
            .init("lib switch", "List accounts; the current one is marked."),
            .init("lib switch bob@library.example.org", "Act as bob from now on."),
        ],
        exitStatuses: [.init(.success), .init(.failure, "No such account, or more than one matches."), .init(.usage)])
}
