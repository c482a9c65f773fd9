import LibCLI

/// lib's commands, listed once. The parser, help, completions and the man
/// page read `CommandRegistry.lib`; the dispatcher runs `handler(named:)`;
/// each verb says which program runs it.
enum LibCommandList {
    /// In the order help lists them; LibCLI's built-in commands follow.
    static let verbs: [any Verb.Type] = [
        Login.self, Logout.self, Switch.self, Rule.self, Device.self,
        Get.self, Edit.self, New.self, Push.self, Pull.self, Search.self, Export.self, Import.self,
        Status.self, Diff.self, Discard.self, Restore.self, Log.self, Revert.self, Resolve.self, Doctor.self,
    ]

    /// The verb with this exact name. A search by name builds no command's
    /// syntax (`command` is built on first use), so a command line pays
    /// only for the command it names.
    static func verb(named name: String) -> (any Verb.Type)? {
        verbs.first { $0.name == name }
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
    public static let lib = CommandRegistry(commands: LibCommandList.verbs.map { LibCommandList.syntax(of: $0) })
}

extension LibCommandList {
    /// A verb as the registry holds it. Written out (not `as` on the array):
    /// an array cast from `[any Verb.Type]` looks each conformance up at
    /// run time, about 80,000 instructions per command at every start.
    static func syntax<V: Verb>(of verb: V.Type) -> any CommandSyntax.Type { verb }
}
