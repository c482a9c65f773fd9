/// Which account a command acts on: `-A`, else `LIB_ACCOUNT`, else the
/// rule for the working directory (`AccountRules`), else the current one. A
/// selector is a full name, an alias, or any unambiguous prefix of a full name.
public enum AccountSelection {
    /// What chose the account, as `lib status --json` names it (`account_source`).
    public enum Source: Sendable, Equatable {
        case option
        case environment
        case rule(directory: String)
        case current

        public var name: String {
            switch self {
            case .option: "option"
            case .environment: "environment"
            case .rule: "rule"
            case .current: "current"
            }
        }
    }

    public struct Choice: Sendable {
        public let account: Account
        public let source: Source

        public init(account: Account, source: Source) {
            self.account = account
            self.source = source
        }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case noAccounts
        case noCurrent
        case notFound(String, known: [String])
        case ambiguous(String, matches: [String])
        /// The rule for `directory` names an account that is not signed in.
        case ruleUnmatched(directory: String, account: String)

        public var description: String {
            switch self {
            case .noAccounts: return "You're not signed in to any account: run `lib login SERVER_URL`"
            case .noCurrent: return "No current account: choose one with `lib switch ACCOUNT` or `-A ACCOUNT`"
            case .notFound(let selector, let known):
                return "No account matches '\(selector)'" + (known.isEmpty ? "" : " (signed in: \(known.joined(separator: ", ")))")
            case .ambiguous(let selector, let matches):
                return "'\(selector)' matches several accounts: \(matches.joined(separator: ", ")); give more of the name"
            case .ruleUnmatched(let directory, let account):
                return "The rule for \(directory) names \(account), which is not signed in: sign in with `lib login`, "
                    + "or remove the rule with `lib rule --remove \(directory)`"
            }
        }
    }

    /// The account in effect and what chose it: `option` (`-A`), else a
    /// non-empty `environment` (`LIB_ACCOUNT`), else the rule covering
    /// `workingDirectory` (`rule`), else the current account. The rules
    /// are read only when neither names one.
    public static func choose(option: String?, environment: String?, rule: (String) throws -> AccountRules.Rule?,
                              workingDirectory: () -> String?, in index: AccountIndex) throws -> Choice {
        if let option, !option.isEmpty { return Choice(account: try resolve(option, in: index), source: .option) }
        if let environment, !environment.isEmpty { return Choice(account: try resolve(environment, in: index), source: .environment) }
        if let directory = workingDirectory(), let rule = try rule(directory) {
            return Choice(account: try account(for: rule, in: index), source: .rule(directory: rule.directory))
        }
        return Choice(account: try resolve(nil, in: index), source: .current)
    }

    /// The account a rule names: by its full name (or alias), or the one
    /// account signed in at the origin it names.
    public static func account(for rule: AccountRules.Rule, in index: AccountIndex) throws(Failure) -> Account {
        if rule.namesOrigin {
            let there = index.accounts.filter { $0.origin.description == rule.account }
            if there.count > 1 { throw .ambiguous(rule.account, matches: there.map(\.name)) }
            if let account = there.first { return account }
        } else if let account = index.account(named: rule.account) ?? index.account(aliased: rule.account) {
            return account
        }
        throw .ruleUnmatched(directory: rule.directory, account: rule.account)
    }

    /// The account for an explicit selector (from `-A` or `LIB_ACCOUNT`), or the current one.
    public static func resolve(_ selector: String?, in index: AccountIndex) throws(Failure) -> Account {
        guard let selector, !selector.isEmpty else {
            guard !index.accounts.isEmpty else { throw .noAccounts }
            guard let current = index.current else { throw .noCurrent }
            return current
        }
        if let exact = index.account(named: selector) ?? index.account(aliased: selector) { return exact }
        let matches = index.accounts.filter { $0.name.hasPrefix(selector) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw index.accounts.isEmpty ? .noAccounts : .notFound(selector, known: index.accounts.map(\.name))
        default: throw .ambiguous(selector, matches: matches.map(\.name))
        }
    }
}
