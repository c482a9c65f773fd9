import LibCLI

/// Which program runs a command: `lib` itself (what this device can do
/// alone: status, get --offline, edit of a known document, resolve, help,
/// completion) or `lib-online` (anything that may need the network or the
/// keyring). Decided from the parsed command line, before the command
/// touches anything. Every command of the registry is listed (a test checks
/// it); one that is not runs in `lib-online`, which can run every command
/// (slower to start, never wrong).
enum CommandPlacement {
    case onDevice
    case online
    /// Online when the predicate holds for the parsed command line.
    case onlineWhen(@Sendable (ParsedCommand) -> Bool)

    static func of(_ command: String) -> CommandPlacement? {
        switch command {
        case StatusSyntax.name, SwitchSyntax.name, ResolveSyntax.name, DiffSyntax.name, DiscardSyntax.name,
             RestoreSyntax.name, RevertSyntax.name, NewSyntax.name:
            .onDevice
        // The log is this device's; a book's server history needs the network.
        case LogSyntax.name:
            .onlineWhen { $0.argument(LogSyntax.path) != nil && !$0.isSet(LogSyntax.offline) }
        // A dry run reads the outbox alone.
        case PushSyntax.name:
            .onlineWhen { !$0.isSet(PushSyntax.dryRun) }
        case GetSyntax.name:
            .onlineWhen { !$0.isSet(GetSyntax.offline) }
        // An edit of a document this device has never seen fetches it first:
        // `EditBase` hands over to `lib-online` at that point, before the
        // edit has changed anything.
        case EditSyntax.name:
            .onlineWhen { $0.isSet(EditSyntax.push) }
        case LoginSyntax.name, LogoutSyntax.name, DoctorSyntax.name:
            .online
        // Built into the dispatcher: the registry alone, no store, no network.
        case HelpSyntax.name, CompletionSyntax.name, CompleteSyntax.name, ManualSyntax.name:
            .onDevice
        default:
            nil
        }
    }

    func isOnline(_ parsed: ParsedCommand) -> Bool {
        switch self {
        case .onDevice: false
        case .online: true
        case .onlineWhen(let predicate): predicate(parsed)
        }
    }
}
