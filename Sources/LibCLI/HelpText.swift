import LibBase

/// Writes `lib --help`, `lib COMMAND --help` and the short usage from the
/// registry, within 80 columns.
public struct HelpText: Sendable {
    public let registry: CommandRegistry
    /// The widest a line may be.
    public let width: Int

    public init(registry: CommandRegistry, width: Int = 80) {
        self.registry = registry
        self.width = width
    }

    /// What `lib` alone prints on standard error before exiting 2.
    public func shortUsage() -> String {
        let names = registry.visibleCommands.map(\.name).joined(separator: " ")
        return [
            usageLine(Synopsis().programParts(registry)),
            TextWrapping.fill("Commands: " + names, width: width, indent: 10, firstIndent: 0),
            "Run '\(ProgramInfo.name) --help' for more.",
        ].joined(separator: "\n") + "\n"
    }

    /// `lib --help` and `lib help`.
    public func programHelp() -> String {
        var sections = [
            usageLine(Synopsis().programParts(registry)),
            TextWrapping.wrap(
                "\(ProgramInfo.name): \(ProgramInfo.tagline). It shows the last known data at once, keeps "
                    + "changes in a durable outbox on this device and sends them, in order and exactly once, "
                    + "when the server can be reached.",
                width: width),
        ]
        sections.append(
            "Commands:\n" + TextWrapping.table(registry.visibleCommands.map { ($0.name, $0.summary) }, width: width))
        sections.append("Global options:\n" + optionTable(registry.globalOptions))
        sections.append("Exit status:\n" + exitTable(ExitCode.allCases.map { CommandSpec.ExitStatus($0) }))
        sections.append(TextWrapping.wrap(
            "Run '\(ProgramInfo.name) help COMMAND' or '\(ProgramInfo.name) COMMAND --help' for a command's "
                + "options and examples, and 'man \(ProgramInfo.name)' for files and environment.",
            width: width))
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `lib COMMAND --help` and `lib help COMMAND`.
    public func commandHelp(_ command: CommandSpec) -> String {
        var sections = [
            usageLine(Synopsis().commandParts(command)),
            TextWrapping.wrap(command.summary + ".", width: width),
        ]
        if !command.discussion.isEmpty {
            sections.append(TextWrapping.wrap(command.discussion, width: width))
        }
        if !command.arguments.isEmpty {
            sections.append(
                "Arguments:\n" + TextWrapping.table(command.arguments.map { ($0.placeholder, $0.summary) }, width: width))
        }
        sections.append("Options:\n" + optionTable(command.acceptedOptions))
        if !command.examples.isEmpty {
            let examples = command.examples.map { example in
                "  " + example.commandLine + "\n" + TextWrapping.fill(example.explanation, width: width, indent: 6)
            }
            sections.append("Examples:\n" + examples.joined(separator: "\n"))
        }
        if !command.exitStatuses.isEmpty {
            sections.append("Exit status:\n" + exitTable(command.exitStatuses))
        }
        sections.append(TextWrapping.wrap(
            "Global options (-A ACCOUNT, --json, -q, -v, --no-color) may be given anywhere "
                + "before '--': see '\(ProgramInfo.name) --help'.",
            width: width))
        return sections.joined(separator: "\n\n") + "\n"
    }

    private func usageLine(_ parts: [String]) -> String {
        TextWrapping.fill(words: ["Usage:"] + parts, width: width, indent: 7, firstIndent: 0)
    }

    private func optionTable(_ options: [OptionSpec]) -> String {
        TextWrapping.table(options.map { ($0.helpLabel, $0.summary) }, width: width)
    }

    private func exitTable(_ statuses: [CommandSpec.ExitStatus]) -> String {
        TextWrapping.table(statuses.map { (String($0.code.rawValue), $0.meaning) }, width: width, maxColumn: 7)
    }
}
