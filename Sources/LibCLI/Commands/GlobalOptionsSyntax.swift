/// lib's own options, accepted anywhere on the line (before `--`):
/// `lib [-A ACCOUNT] [--json] [-q] [-v] [--no-color] COMMAND`.
public enum GlobalOptionsSyntax {
    public static let account = OptionSpec.option(
        "account", short: "A", value: "ACCOUNT", .account,
        "Act as ACCOUNT (user@host[:port] or a unique prefix)",
        details: "Without it, LIB_ACCOUNT, else the rule for the working directory (lib rule), else the current account chosen with lib switch.")
    public static let json = OptionSpec.flag(
        "json", "Print one JSON document instead of text",
        details: """
            The format is for scripts and does not change between versions; each \
            command's JSON Schema is installed in /usr/share/lib/schemas (under \
            /usr/local after make install). Errors are then a JSON document \
            on standard error too: {"error": {"message", "exit_code", "reason"}}.
            """)
    public static let quiet = OptionSpec.flag(
        "quiet", short: "q", "Print nothing but problems that need you",
        details: """
            Success and temporary failures (exit 75) print nothing, unless the \
            oldest write still pending has waited longer than LIB_QUIET_AFTER \
            (default 1d). Conflicts, rejections, authentication and other \
            failures always print.
            """)
    public static let verbose = OptionSpec.counter(
        "verbose", short: "v", "Trace each request on standard error (-vv: libcurl's too)",
        details: """
            One line per request: method, URL, status, time, whether the connection \
            was reused, and the proxy. Authorization and cookies are redacted. \
            LIB_DEBUG=1 (or 2) does the same.
            """)
    public static let noColor = OptionSpec.flag(
        "no-color", "Never colour the output",
        details: "Colour is used only on a terminal and never when NO_COLOR is set.")
    public static let help = OptionSpec.flag(
        "help", short: "h", "Show help and exit")
    public static let version = OptionSpec.flag(
        "version", "Print the version and exit")

    /// In the order help and the man page list them.
    public static let all: [OptionSpec] = [account, json, quiet, verbose, noColor, help, version]

    /// The option with this long name. A switch, not a search of `all`:
    /// every command line looks its global options up, and building the
    /// list costs more than the rest of `lib --version`.
    static func option(named name: String) -> OptionSpec? {
        switch name {
        case "account": account
        case "json": json
        case "quiet": quiet
        case "verbose": verbose
        case "no-color": noColor
        case "help": help
        case "version": version
        default: nil
        }
    }

    /// The option with this short name.
    static func option(short: Character) -> OptionSpec? {
        switch short {
        case "A": account
        case "q": quiet
        case "v": verbose
        case "h": help
        default: nil
        }
    }
}
