/// The options given before the command: `lib [-A ACCOUNT] [--json] [-q] [--no-color] COMMAND`.
public enum GlobalOptionsSyntax {
    public static let account = OptionSpec.option(
        "account", short: "A", value: "ACCOUNT", .account,
        "Act as ACCOUNT (user@host[:port] or a unique prefix)",
        details: "Without it, LIB_ACCOUNT, else the current account chosen with lib switch.")
    public static let json = OptionSpec.flag(
        "json", "Print stable JSON instead of text",
        details: "The format is for scripts and does not change between versions.")
    public static let quiet = OptionSpec.flag(
        "quiet", short: "q", "Print nothing but problems")
    public static let noColor = OptionSpec.flag(
        "no-color", "Never colour the output",
        details: "Colour is used only on a terminal and never when NO_COLOR is set.")
    public static let help = OptionSpec.flag(
        "help", short: "h", "Show help and exit")
    public static let version = OptionSpec.flag(
        "version", "Print the version and exit")

    /// In the order help and the man page list them.
    public static let all: [OptionSpec] = [account, json, quiet, noColor, help, version]
}
