import LibBase

/// Turns `lib`'s arguments into a `ParseOutcome`, with gh's and GNU's
/// conventions: global options anywhere on the line; `--opt value`,
/// `--opt=value`, combined short flags (`-qA alice`); `--` ends options.
/// Repeated and conflicting options, unknown names, missing or malformed
/// values are `UsageError`s that name the culprit and suggest near matches.
public struct CommandLineParser: Sendable {
    public let registry: CommandRegistry

    public init(registry: CommandRegistry) {
        self.registry = registry
    }

    /// Parses the arguments after the program name.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var tokens = TokenStream(arguments)
        var collectors = OptionCollectors(globals: OptionCollector(scope: nil, exclusiveGroups: []))
        var onlyPositionals = false
        while let token = tokens.peek() {
            if token == "--" {
                tokens.advance()
                onlyPositionals = true
                break
            }
            guard Self.isOption(token) else { break }
            tokens.advance()
            try scanOption(token, from: &tokens, into: &collectors) { (name, spelling) throws(UsageError) in
                (try globalLookUp(name, spelling), .global)
            }
        }
        let globals = collectors.globals

        let commandName = tokens.next()
        if globals.value(of: GlobalOptionsSyntax.help.name) != nil {
            guard let commandName else { return .help(nil) }
            return .help(try command(named: commandName))
        }
        if globals.value(of: GlobalOptionsSyntax.version.name) != nil { return .version }
        guard let commandName else { return .missingCommand }
        let command = try command(named: commandName)
        let rest = tokens.remaining
        if Self.asksForHelp(rest) { return .help(command) }
        return .run(try parseCommand(command, rest, globals: globals, onlyPositionals: onlyPositionals))
    }

    // MARK: - The command's own arguments

    /// The words after the command: its options and arguments, and global
    /// options anywhere among them (as gh and kubectl take them) until `--`.
    private func parseCommand(
        _ command: CommandSpec, _ arguments: [String], globals: OptionCollector, onlyPositionals startsPositional: Bool
    ) throws(UsageError) -> ParsedCommand {
        var tokens = TokenStream(arguments)
        var collectors = OptionCollectors(
            globals: globals, command: OptionCollector(scope: command.name, exclusiveGroups: command.exclusiveGroups))
        // A global option repeated after the command names the command's help.
        collectors.globals.scope = command.name
        var positionals: [String] = []
        var onlyPositionals = startsPositional
        while let token = tokens.next() {
            if onlyPositionals || !Self.isOption(token) {
                positionals.append(token)
            } else if token == "--" {
                onlyPositionals = true
            } else {
                try scanOption(token, from: &tokens, into: &collectors) { (name, spelling) throws(UsageError) in
                    try commandLookUp(command, name, spelling)
                }
            }
        }
        let assigned = try assign(positionals, to: command)
        return ParsedCommand(
            command: command, globalOptions: globalOptions(from: collectors.globals),
            optionValues: collectors.command?.values ?? [:], argumentValues: assigned)
    }

    private func assign(_ values: [String], to command: CommandSpec) throws(UsageError) -> NamedValues<[String]> {
        var remaining = values[...]
        var assigned = NamedValues<[String]>()
        for argument in command.arguments {
            let taken: [String]
            switch argument.arity {
            case .required:
                guard let value = remaining.popFirst() else { throw missing(argument, of: command) }
                taken = [value]
            case .optional:
                taken = remaining.popFirst().map { [$0] } ?? []
            case .repeated, .oneOrMore:
                guard !remaining.isEmpty || argument.arity == .repeated else { throw missing(argument, of: command) }
                taken = Array(remaining)
                remaining = []
            }
            for value in taken {
                try checkArgument(value, argument, of: command)
            }
            if !taken.isEmpty { assigned[argument.placeholder] = taken }
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)' for '\(command.name)'", command: command.name)
        }
        return assigned
    }

    private func missing(_ argument: ArgumentSpec, of command: CommandSpec) -> UsageError {
        var message = "missing argument \(argument.placeholder) for '\(command.name)'"
        if case .choice(let words) = argument.kind {
            message += " (\(Wording.list(words, conjunction: "or")))"
        }
        return UsageError(message, command: command.name)
    }

    private func checkArgument(_ value: String, _ argument: ArgumentSpec, of command: CommandSpec) throws(UsageError) {
        switch argument.kind {
        case .choice(let words) where !words.contains(value):
            let hint = Suggestions.didYouMean(value, among: words)
            throw UsageError(
                "unknown \(argument.placeholder) '\(value)' for '\(command.name)'"
                    + (hint.isEmpty ? " (expected \(Wording.list(words, conjunction: "or")))" : hint),
                command: command.name)
        case .command where registry.command(named: value) == nil:
            throw UsageError(
                "unknown command '\(value)'" + Suggestions.didYouMean(value, among: registry.visibleCommands.map(\.name)))
        case .assignment where FieldAssignment(parsing: value) == nil:
            throw UsageError(
                "invalid assignment '\(value)' for '\(command.name)' (expected FIELD=STRING or FIELD:=JSON)",
                command: command.name)
        default:
            return
        }
    }

    // MARK: - Options

    /// Finds an option by name and says whose it is, or throws the usage
    /// error for an unknown one (`spelling` is how it was typed, for the message).
    private typealias LookUp = (_ name: LookUpName, _ spelling: String) throws(UsageError) -> (OptionSpec, OptionScope)

    /// An option name as typed: `--wait` or `-A`, without the dashes.
    private enum LookUpName {
        case long(String)
        case short(Character)
    }

    private func globalLookUp(_ name: LookUpName, _ spelling: String) throws(UsageError) -> OptionSpec {
        switch name {
        case .long(let long):
            if let option = registry.globalOption(named: long) { return option }
            throw UsageError(
                "unknown option '\(spelling)'" + Suggestions.didYouMean(spelling, among: registry.globalOptions.map(\.longForm)))
        case .short(let short):
            if let option = registry.globalOption(short: short) { return option }
            throw UsageError("unknown option '\(spelling)'")
        }
    }

    /// The command's own option, else a global one (a command's option wins
    /// when both have the name).
    private func commandLookUp(
        _ command: CommandSpec, _ name: LookUpName, _ spelling: String
    ) throws(UsageError) -> (OptionSpec, OptionScope) {
        let found: OptionSpec?
        let global: OptionSpec?
        switch name {
        case .long(let long):
            found = command.option(named: long)
            global = registry.globalOption(named: long)
        case .short(let short):
            found = command.option(short: short)
            global = registry.globalOption(short: short)
        }
        if let found { return (found, .command) }
        if let global { return (global, .global) }
        var message = "unknown option '\(spelling)' for '\(command.name)'"
        if case .long = name {
            message += Suggestions.didYouMean(
                spelling, among: registry.optionsAccepted(after: command).map(\.longForm))
        }
        throw UsageError(message, command: command.name)
    }

    /// Reads one option token (`--name`, `--name=value`, or a cluster of short
    /// flags such as `-qA`), taking its value from the token or the next one.
    private func scanOption(
        _ token: String, from tokens: inout TokenStream, into collectors: inout OptionCollectors, lookUp: LookUp
    ) throws(UsageError) {
        let scope = collectors.command?.scope
        if token.hasPrefix("--") {
            let body = token.dropFirst(2)
            let name: String
            let inline: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inline = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
                inline = nil
            }
            let spelling = "--" + name
            let (option, owner) = try lookUp(.long(name), spelling)
            if option.takesValue {
                let value: String
                if let inline {
                    value = inline
                } else {
                    value = try nextValue(for: option, spelling: spelling, scope: scope, from: &tokens)
                }
                try collectors.record(option, owner, spelling: spelling, text: value)
            } else if inline != nil {
                throw UsageError("option '\(spelling)' does not take a value", command: scope)
            } else {
                try collectors.record(option, owner, spelling: spelling, text: nil)
            }
            return
        }
        var letters = token.dropFirst()
        while let letter = letters.popFirst() {
            let spelling = "-" + String(letter)
            let (option, owner) = try lookUp(.short(letter), spelling)
            guard option.takesValue else {
                try collectors.record(option, owner, spelling: spelling, text: nil)
                continue
            }
            let value: String
            if letters.isEmpty {
                value = try nextValue(for: option, spelling: spelling, scope: scope, from: &tokens)
            } else {
                value = String(letters)
            }
            try collectors.record(option, owner, spelling: spelling, text: value)
            return
        }
    }

    /// The value in the next token; a token that looks like an option does
    /// not count (write `--opt=-value` for a value that starts with a dash).
    private func nextValue(
        for option: OptionSpec, spelling: String, scope: String?, from tokens: inout TokenStream
    ) throws(UsageError) -> String {
        guard let value = tokens.peek(), !Self.isOption(value) else {
            throw UsageError(
                "option '\(spelling)' needs a value (\(option.value?.placeholder ?? "VALUE"))", command: scope)
        }
        tokens.advance()
        return value
    }

    // MARK: - Helpers

    private func command(named name: String) throws(UsageError) -> CommandSpec {
        if let command = registry.command(named: name) { return command }
        throw UsageError(
            "unknown command '\(name)'" + Suggestions.didYouMean(name, among: registry.visibleCommands.map(\.name)))
    }

    private func globalOptions(from collector: OptionCollector) -> GlobalOptions {
        var account: String?
        if case .text(let text)? = collector.value(of: GlobalOptionsSyntax.account.name) { account = text }
        var verbosity = 0
        if case .count(let count)? = collector.value(of: GlobalOptionsSyntax.verbose.name) { verbosity = count }
        return GlobalOptions(
            account: account,
            json: collector.value(of: GlobalOptionsSyntax.json.name) != nil,
            quiet: collector.value(of: GlobalOptionsSyntax.quiet.name) != nil,
            noColor: collector.value(of: GlobalOptionsSyntax.noColor.name) != nil,
            verbosity: verbosity)
    }

    /// `-x…` and `--x…` are options; `-` alone (standard input) is not.
    private static func isOption(_ token: String) -> Bool {
        token.hasPrefix("-") && token != "-"
    }

    /// `-h` or `--help` anywhere before `--` shows help, whatever else is wrong.
    private static func asksForHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "-h" || argument == "--help" { return true }
        }
        return false
    }
}

/// The arguments not read yet.
private struct TokenStream {
    private let tokens: [String]
    private var index = 0

    init(_ tokens: [String]) {
        self.tokens = tokens
    }

    func peek() -> String? { index < tokens.count ? tokens[index] : nil }

    mutating func advance() { index += 1 }

    mutating func next() -> String? {
        defer { if index < tokens.count { index += 1 } }
        return peek()
    }

    var remaining: [String] { Array(tokens[min(index, tokens.count)...]) }
}

/// Whose an option is: lib's (given anywhere) or the command's.
private enum OptionScope {
    case global, command
}

/// The global options and, once the command is known, its own.
private struct OptionCollectors {
    var globals: OptionCollector
    var command: OptionCollector?

    mutating func record(_ option: OptionSpec, _ owner: OptionScope, spelling: String, text: String?) throws(UsageError) {
        switch owner {
        case .global:
            try globals.record(option, spelling: spelling, text: text)
        case .command:
            try command?.record(option, spelling: spelling, text: text)
        }
    }
}
