import LibCLI

/// Which program runs a command: `lib` itself (what this device can do
/// alone: status, get --offline, edit of a known document, resolve, help,
/// completion) or `lib-online` (anything that may need the network or the
/// keyring). Decided from the parsed command line, before the command
/// touches anything; a command not listed here runs in `lib-online`, which
/// can run every command (slower to start, never wrong).
enum CommandPlacement {
    case onDevice
    case online
    /// Online when the predicate holds for the parsed command line.
    case onlineWhen(@Sendable (ParsedCommand) -> Bool)

    static let byCommand: [String: CommandPlacement] = [
        StatusSyntax.command.name: .onDevice,
        SwitchSyntax.command.name: .onDevice,
        ResolveSyntax.command.name: .onDevice,
        DiffSyntax.command.name: .onDevice,
        DiscardSyntax.command.name: .onDevice,
        GetSyntax.command.name: .onlineWhen { !$0.isSet(GetSyntax.offline) },
        // An edit of a document this device has never seen fetches it first:
        // `EditBase` hands over to `lib-online` at that point, before the
        // edit has changed anything.
        EditSyntax.command.name: .onlineWhen { $0.isSet(EditSyntax.push) },
        LoginSyntax.command.name: .online,
        LogoutSyntax.command.name: .online,
        PushSyntax.command.name: .online,
    ]

    func isOnline(_ parsed: ParsedCommand) -> Bool {
        switch self {
        case .onDevice: false
        case .online: true
        case .onlineWhen(let predicate): predicate(parsed)
        }
    }
}
