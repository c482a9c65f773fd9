/// A command line that parsed: the command, the global options, and the
/// command's checked option values and arguments. Handlers read it through
/// the declarations in the command's syntax, e.g.
/// `parsed.seconds(Push.wait)`.
public struct ParsedCommand: Sendable {
    public let command: CommandSpec
    public let globalOptions: GlobalOptions
    /// By option long name.
    public let optionValues: NamedValues<OptionValue>
    /// By argument placeholder, in the order given.
    public let argumentValues: NamedValues<[String]>

    public init(
        command: CommandSpec, globalOptions: GlobalOptions = GlobalOptions(),
        optionValues: NamedValues<OptionValue> = [:], argumentValues: NamedValues<[String]> = [:]
    ) {
        self.command = command
        self.globalOptions = globalOptions
        self.optionValues = optionValues
        self.argumentValues = argumentValues
    }

    public var name: String { command.name }

    /// Whether the option (flag or not) was given.
    public func isSet(_ option: OptionSpec) -> Bool {
        optionValues[option.name] != nil
    }

    /// The text given to an option such as `--user NAME`.
    public func text(_ option: OptionSpec) -> String? {
        if case .text(let text)? = optionValues[option.name] { return text }
        return nil
    }

    /// The seconds given to an option such as `--wait DURATION`.
    public func seconds(_ option: OptionSpec) -> Double? {
        if case .seconds(let seconds)? = optionValues[option.name] { return seconds }
        return nil
    }

    /// How many times a counted flag such as `-v` was given (0 when not).
    public func count(_ option: OptionSpec) -> Int {
        if case .count(let count)? = optionValues[option.name] { return count }
        return 0
    }

    /// The single value of an argument, if given.
    public func argument(_ argument: ArgumentSpec) -> String? {
        argumentValues[argument.placeholder]?.first
    }

    /// Every value of a repeated argument, in order.
    public func arguments(_ argument: ArgumentSpec) -> [String] {
        argumentValues[argument.placeholder] ?? []
    }

    /// The values of an assignment argument (`lib edit`), already checked by the parser.
    public func assignments(_ argument: ArgumentSpec) -> [FieldAssignment] {
        arguments(argument).compactMap(FieldAssignment.init(parsing:))
    }
}
