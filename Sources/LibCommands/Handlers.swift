import LibCLI

/// The handler of each command, by name: what `lib`'s main hands the dispatcher.
public enum LibCommandHandlers {
    /// A switch rather than a table, so that a command line builds nothing
    /// for the commands it does not name.
    public static func handler(named name: String) -> CommandHandler? {
        switch name {
        case LoginSyntax.name: Login.run
        case LogoutSyntax.name: Logout.run
        case SwitchSyntax.name: Switch.run
        case StatusSyntax.name: Status.run
        case GetSyntax.name: Get.run
        case EditSyntax.name: Edit.run
        case PushSyntax.name: Push.run
        case ResolveSyntax.name: Resolve.run
        case DiffSyntax.name: Diff.run
        case DiscardSyntax.name, RestoreSyntax.name: Discard.run
        case LogSyntax.name: Log.run
        case RevertSyntax.name: Revert.run
        case NewSyntax.name: New.run
        case DoctorSyntax.name: Doctor.run
        default: nil
        }
    }
}
