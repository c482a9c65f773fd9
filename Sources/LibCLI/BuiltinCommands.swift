/// The handlers LibCLI itself provides: `help`, `completion`, and the hidden
/// `__complete` and `__man`.
public enum BuiltinCommands {
    /// Listed after a program's own commands, in this order.
    static let syntaxes: [any CommandSyntax.Type] = [
        CompletionSyntax.self, HelpSyntax.self, CompleteSyntax.self, ManualSyntax.self,
    ]

    /// The handler of the built-in command with this name, if it is one.
    public static func handler(named name: String, registry: CommandRegistry) -> CommandHandler? {
        switch name {
        case HelpSyntax.name:
            return { parsed, context in
                let help = HelpText(registry: registry)
                if let name = parsed.argument(HelpSyntax.topic), let command = registry.command(named: name) {
                    context.standardOutput.write(help.commandHelp(command))
                } else {
                    context.standardOutput.write(help.programHelp())
                }
                return .success
            }
        case CompletionSyntax.name:
            return { parsed, context in
                guard let name = parsed.argument(CompletionSyntax.shell), let shell = Shell(rawValue: name) else {
                    throw UsageError("missing argument SHELL for 'completion'", command: CompletionSyntax.command.name)
                }
                context.standardOutput.write(shell.completionScript(for: registry))
                return .success
            }
        case CompleteSyntax.name:
            return { parsed, context in
                let prefix = parsed.argument(CompleteSyntax.prefix) ?? ""
                let candidates: [String]
                switch parsed.argument(CompleteSyntax.topic).flatMap(CompleteSyntax.Topic.init(rawValue:)) {
                case .accounts:
                    candidates = context.completionSource.accountNames(startingWith: prefix, context: context)
                case .paths, .resources, .conflicts, .pushed:
                    let topic = parsed.argument(CompleteSyntax.topic).flatMap(CompleteSyntax.Topic.init(rawValue:))!
                    let titled = parsed.isSet(CompleteSyntax.titles)
                    candidates = context.completionSource.paths(topic, startingWith: prefix, context: context).map { path, title in
                        // A title on the same line, after a tab: one line each, whatever it holds.
                        guard titled, let title, !title.isEmpty else { return path }
                        return path + "\t" + String(TerminalText.escaped(title).filter { $0 != "\t" && $0 != "\n" }.prefix(60))
                    }
                case .fields:
                    candidates = context.completionSource.fieldAssignments(startingWith: prefix, context: context)
                case nil:
                    candidates = []
                }
                if !candidates.isEmpty {
                    context.standardOutput.write(candidates.joined(separator: "\n") + "\n")
                }
                return .success
            }
        case ManualSyntax.name:
            return { _, context in
                context.standardOutput.write(ManualPage(registry: registry).render())
                return .success
            }
        default:
            return nil
        }
    }
}
