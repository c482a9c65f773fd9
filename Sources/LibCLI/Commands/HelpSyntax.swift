/// `lib help [COMMAND]`
public enum HelpSyntax: CommandSyntax {
    public static let name = "help"

    public static let topic = ArgumentSpec(
        "COMMAND", .command, .optional, "The command to explain")

    public static let command = CommandSpec(
        name: name,
        summary: "Show help for lib or for a command",
        discussion: "Shows the same text as lib --help, or as lib COMMAND --help.",
        arguments: [topic],
        examples: [.init("lib help push", "Options and exit codes of push.")],
        exitStatuses: [.init(.success), .init(.usage)])
}
