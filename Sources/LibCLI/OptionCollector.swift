/// Records the options of one scope (the global options, or one command's),
/// rejecting repeats and conflicts and checking values against their kind.
struct OptionCollector {
    /// The command whose help a usage error points to, or `nil` for lib's.
    var scope: String?
    let exclusiveGroups: [[String]]
    private(set) var values: [String: OptionValue] = [:]
    /// How each recorded option was typed (`-q` or `--quiet`), for messages.
    private var spellings: [String: String] = [:]

    init(scope: String?, exclusiveGroups: [[String]]) {
        self.scope = scope
        self.exclusiveGroups = exclusiveGroups
    }

    mutating func record(_ option: OptionSpec, spelling: String, text: String?) throws(UsageError) {
        if option.isCounted {
            if case .count(let count)? = values[option.name] {
                values[option.name] = .count(count + 1)
            } else {
                values[option.name] = .count(1)
            }
            return
        }
        if values[option.name] != nil {
            throw UsageError("option '\(spelling)' given twice", command: scope)
        }
        if let group = exclusiveGroups.first(where: { $0.contains(option.name) }),
           let earlier = group.first(where: { values[$0] != nil }) {
            let earlierSpelling = spellings[earlier] ?? "--" + earlier
            throw UsageError("'\(earlierSpelling)' and '\(spelling)' cannot be used together", command: scope)
        }
        values[option.name] = try Self.value(of: option, spelling: spelling, text: text, scope: scope)
        spellings[option.name] = spelling
    }

    private static func value(of option: OptionSpec, spelling: String, text: String?, scope: String?) throws(UsageError) -> OptionValue {
        guard let kind = option.value?.kind, let text else { return .flag }
        switch kind {
        case .duration:
            guard let seconds = SecondsValue.parse(text) else {
                throw UsageError(
                    "option '\(spelling)' needs a duration such as 90, 90s, 2m or 1.5, not '\(text)'", command: scope)
            }
            return .seconds(seconds)
        case .choice(let words) where !words.contains(text):
            throw UsageError(
                "option '\(spelling)' needs one of \(Wording.list(words, conjunction: "or")), not '\(text)'"
                    + Suggestions.didYouMean(text, among: words),
                command: scope)
        case .text, .account, .resourcePath, .assignment, .choice, .command:
            if text.isEmpty {
                throw UsageError("option '\(spelling)' needs a value (\(option.value?.placeholder ?? "VALUE"))", command: scope)
            }
            return .text(text)
        }
    }
}
