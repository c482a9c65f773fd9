import LibCLI

/// lib's commands, listed once. The parser, help, completions and the man
/// page read `CommandRegistry.lib`; the dispatcher runs `handler(named:)`;
/// each verb says which program runs it.
enum LibCommandList {
    /// In the order help lists them; LibCLI's built-in commands follow.
    static let verbs: [any Verb.Type] = [
        Login.self, Logout.self, Switch.self,
        Get.self, Edit.self, New.self, Push.self,
        Status.self, Diff.self, Discard.self, Restore.self, Log.self, Revert.self, Resolve.self, Doctor.self,
    ]

    /// A switch rather than a search of `verbs`, so that a command line
    /// builds nothing for the commands it does not name (a test checks the
    /// two agree).
    static func verb(named name: String) -> (any Verb.Type)? {
        switch name {
        case Login.name: Login.self
        case Logout.name: Logout.self
        case Switch.name: Switch.self
        case Get.name: Get.self
        case Edit.name: Edit.self
        case New.name: New.self
        case Restore.name: Restore.self
        case Log.name: Log.self
        case Revert.name: Revert.self
        case Push.name: Push.self
        case Status.name: Status.self
        case Diff.name: Diff.self
        case Discard.name: Discard.self
        case Resolve.name: Resolve.self
        case Doctor.name: Doctor.self
        default: nil
        }
    }

    /// The handler of the lib command with this name (LibCLI runs its own
    /// built-in ones).
    static func handler(named name: String) -> CommandHandler? {
        guard let verb = verb(named: name) else { return nil }
        return handler(of: verb)
    }

    private static func handler<V: Verb>(of verb: V.Type) -> CommandHandler {
        { parsed, context in try V.handler(parsed, context) }
    }
}

extension CommandRegistry {
    /// lib's commands and LibCLI's built-in ones.
    public static let lib = CommandRegistry(commands: LibCommandList.verbs.map { LibCommandList.syntax(of: $0) }) {
        LibCommandList.verb(named: $0).map { LibCommandList.syntax(of: $0) }
    }
}

extension LibCommandList {
    /// A verb as the registry holds it. Written out (not `as` on the array):
    /// an array cast from `[any Verb.Type]` looks each conformance up at
    /// run time, about 80,000 instructions per command at every start.
    static func syntax<V: Verb>(of verb: V.Type) -> any CommandSyntax.Type { verb }
}
