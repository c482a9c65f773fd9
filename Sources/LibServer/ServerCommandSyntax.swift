import LibBase

/// One of lib-server's commands (serving, `user add`) as the flags registry
/// declares it: the words that name it, its operand, its flags. Parses a
/// command line into its options; the usage text and the man page read the
/// same declaration.
struct ServerCommandSyntax<Options>: Sendable {
    /// A word on the command line that is not a flag, such as `user add`'s NAME.
    struct Operand: Sendable {
        let placeholder: String
        let apply: @Sendable (inout Options, String) -> Void
    }

    /// `["user", "add"]`; none for serving.
    let words: [String]
    /// What the command does, for `--help` and the man page.
    let summary: String
    var operand: Operand?
    let flags: [ServerFlag<Options>]

    /// `lib-server user add`.
    var commandLine: String { (["lib-server"] + words).joined(separator: " ") }

    /// Fills `options` from `arguments` (what follows the command's words).
    /// Returns the flag that ended parsing (`--help`), if one did. Every
    /// error names the argument or flag at fault.
    func parse(_ arguments: ArraySlice<String>, into options: inout Options) throws(ServerUsageError) -> ServerFlag<Options>? {
        var rest = arguments
        var given: Set<String> = []
        var operandGiven = false
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-"), argument != "-" else {
                guard let operand, !operandGiven else { throw ServerUsageError("unknown argument '\(argument)'") }
                operand.apply(&options, argument)
                operandGiven = true
                continue
            }
            // `--name=value` is `--name value`.
            let (spelling, attached) = Self.split(argument)
            guard let flag = flags.first(where: { $0.longForm == spelling || $0.shortForm == spelling }) else {
                let near = Suggestions.didYouMean(spelling, among: flags.map(\.longForm))
                throw ServerUsageError("unknown argument '\(argument)'" + near)
            }
            var value = ""
            if flag.value != nil {
                guard let next = attached ?? rest.popFirst() else { throw ServerUsageError("\(spelling) needs a value") }
                value = next
            } else if attached != nil {
                throw ServerUsageError("\(spelling) takes no value")
            }
            try flag.apply(&options, value)
            given.insert(flag.name)
            if flag.endsParsing { return flag }
        }
        if let operand, !operandGiven { throw ServerUsageError("\(words.joined(separator: " ")) needs a \(operand.placeholder)") }
        if let missing = flags.first(where: { $0.isRequired && !given.contains($0.name) }) {
            throw ServerUsageError("\(missing.label) is required")
        }
        return nil
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The flags as a synopsis shows them: required ones bare, the others
    /// in brackets, a repeatable one followed by `...`; the flags that end
    /// parsing (`--help`, `--version`) have a line of their own.
    var synopsisItems: [(flag: ServerFlag<Options>, text: String)] {
        flags.filter { !$0.endsParsing }.map { flag in
            let bare = flag.longForm + (flag.value.map { " " + $0 } ?? "")
            return (flag, flag.isRequired ? bare : "[" + bare + "]" + (flag.isRepeatable ? "..." : ""))
        }
    }
}
