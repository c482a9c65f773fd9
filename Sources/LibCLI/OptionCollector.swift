import LibBase

/// Records the options of one scope (the global options, or one command's),
/// rejecting repeats and conflicts and checking values against their kind.
struct OptionCollector {
    /// The command whose help a usage error points to, or `nil` for lib's.
    var scope: String?
    let exclusiveGroups: [[String]]
    /// The newest first, each pointing to the one before.
    private var newest: RecordedOption?

    init(scope: String?, exclusiveGroups: [[String]]) {
        self.scope = scope
        self.exclusiveGroups = exclusiveGroups
    }

    /// The value of the option with this long name, if it was given.
    func value(of name: String) -> OptionValue? {
        recorded(name)?.value
    }

    /// Every option given, by long name, in the order given.
    var values: NamedValues<OptionValue> {
        var newestFirst: [RecordedOption] = []
        var option = newest
        while let current = option {
            newestFirst.append(current)
            option = current.earlier
        }
        var values = NamedValues<OptionValue>()
        // A counted flag has a record per time given; its newest holds the count.
        for option in newestFirst.reversed() where values[option.name] == nil {
            values[option.name] = value(of: option.name)
        }
        return values
    }

    mutating func record(_ option: OptionSpec, spelling: String, text: String?) throws(UsageError) {
        let earlier = recorded(option.name)
        if option.isCounted {
            var count = 1
            if case .count(let given)? = earlier?.value { count = given + 1 }
            newest = RecordedOption(name: option.name, value: .count(count), spelling: spelling, earlier: newest)
            return
        }
        if earlier != nil {
            throw UsageError("option '\(spelling)' given twice", command: scope)
        }
        if let group = exclusiveGroups.first(where: { $0.contains(option.name) }),
           let other = first(where: { group.contains($0.name) }) {
            throw UsageError("'\(other.spelling)' and '\(spelling)' cannot be used together", command: scope)
        }
        let value = try Self.value(of: option, spelling: spelling, text: text, scope: scope)
        newest = RecordedOption(name: option.name, value: value, spelling: spelling, earlier: newest)
    }

    /// The latest record of the option with this long name.
    private func recorded(_ name: String) -> RecordedOption? {
        first { $0.name == name }
    }

    /// The newest record that matches.
    private func first(where matches: (RecordedOption) -> Bool) -> RecordedOption? {
        var option = newest
        while let current = option {
            if matches(current) { return current }
            option = current.earlier
        }
        return nil
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
        case .text, .account, .resourcePath, .collectionOrPath, .conflictPath, .pushedPath, .assignment, .choice, .command:
            if text.isEmpty {
                throw UsageError("option '\(spelling)' needs a value (\(option.value?.placeholder ?? "VALUE"))", command: scope)
            }
            return .text(text)
        }
    }
}

/// One option as given: a node of an immutable list rather than an array's
/// element, so that recording it builds no generic type at run time (an
/// array of structs here cost 8% of `lib --version`).
private final class RecordedOption: Sendable {
    let name: String
    let value: OptionValue
    /// How it was typed (`-q` or `--quiet`), for messages.
    let spelling: String
    let earlier: RecordedOption?

    init(name: String, value: OptionValue, spelling: String, earlier: RecordedOption?) {
        self.name = name
        self.value = value
        self.spelling = spelling
        self.earlier = earlier
    }
}
