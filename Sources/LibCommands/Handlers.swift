import LibCLI

/// The handler of each command, by name: what `lib`'s main hands the dispatcher.
public enum LibCommandHandlers {
    public static let all: [String: CommandHandler] = [
        LoginSyntax.command.name: Login.run,
        LogoutSyntax.command.name: Logout.run,
        SwitchSyntax.command.name: Switch.run,
        StatusSyntax.command.name: Status.run,
        GetSyntax.command.name: Get.run,
        EditSyntax.command.name: Edit.run,
        PushSyntax.command.name: Push.run,
        ResolveSyntax.command.name: Resolve.run,
        DiffSyntax.command.name: Diff.run,
        DiscardSyntax.command.name: Discard.run,
        DoctorSyntax.command.name: Doctor.run,
    ]
}
