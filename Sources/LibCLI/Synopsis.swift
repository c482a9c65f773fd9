/// Writes synopses (`lib get PATH [--offline | --fresh] [--timeout DURATION]`)
/// from the declarations, with a style for literal words and one for
/// placeholders, so that help (plain) and the man page (bold and italic)
/// show the same thing.
struct Synopsis {
    /// How to show a word the user types as is (`get`, `--wait`).
    var literal: (String) -> String = { $0 }
    /// How to show a word the user replaces (`PATH`, `SECONDS`).
    var placeholder: (String) -> String = { $0 }

    func option(_ option: OptionSpec, short: Bool = false) -> String {
        let form = short ? (option.shortForm ?? option.longForm) : option.longForm
        return literal(form) + (option.value.map { " " + placeholder($0.placeholder) } ?? "")
    }

    func argument(_ argument: ArgumentSpec) -> String {
        let shown: String
        if case .choice(let words) = argument.kind {
            shown = words.map(literal).joined(separator: "|")
        } else {
            shown = placeholder(argument.placeholder)
        }
        switch argument.arity {
        case .required: return shown
        case .optional: return "[\(shown)]"
        case .repeated: return "[\(shown) ...]"
        case .oneOrMore: return "\(shown) ..."
        }
    }

    /// `lib push [--wait DURATION] [--all]`: arguments first, then options,
    /// exclusive groups as `[--a | --b]`.
    func command(_ command: CommandSpec) -> String {
        commandParts(command).joined(separator: " ")
    }

    /// The synopsis in units that line wrapping must keep whole.
    func commandParts(_ command: CommandSpec) -> [String] {
        var parts = [literal(ProgramInfo.name), literal(command.name)] + command.arguments.map(argument)
        var shownGroups: Set<[String]> = []
        for each in command.options {
            if let group = command.exclusiveGroup(containing: each.name) {
                guard shownGroups.insert(group).inserted else { continue }
                let members = group.compactMap { command.option(named: $0) }.map { option($0) }
                parts.append("[" + members.joined(separator: " | ") + "]")
            } else {
                parts.append("[\(option(each))]")
            }
        }
        return parts
    }

    /// `lib [-A ACCOUNT] [--json] [-q] [--no-color] COMMAND ...`
    func program(_ registry: CommandRegistry) -> String {
        programParts(registry).joined(separator: " ")
    }

    /// The program synopsis in units that line wrapping must keep whole.
    func programParts(_ registry: CommandRegistry) -> [String] {
        let shown = registry.globalOptions.filter {
            $0 != GlobalOptionsSyntax.help && $0 != GlobalOptionsSyntax.version
        }
        let parts = shown.map { "[" + option($0, short: true) + "]" }
        return [literal(ProgramInfo.name)] + parts + [placeholder("COMMAND"), "..."]
    }
}
