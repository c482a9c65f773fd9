/// Which account a command acts on: `-A`, else `LIB_ACCOUNT`, else the
/// current one. A selector is a full name, an alias, or any unambiguous
/// prefix of a full name.
public enum AccountSelection {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case noAccounts
        case noCurrent
        case notFound(String, known: [String])
        case ambiguous(String, matches: [String])

        public var description: String {
            switch self {
            case .noAccounts: return "You're not signed in to any account: run `lib login SERVER_URL`"
            case .noCurrent: return "No current account: choose one with `lib switch ACCOUNT` or `-A ACCOUNT`"
            case .notFound(let selector, let known):
                return "No account matches '\(selector)'" + (known.isEmpty ? "" : " (signed in: \(known.joined(separator: ", ")))")
            case .ambiguous(let selector, let matches):
                return "'\(selector)' matches several accounts: \(matches.joined(separator: ", ")); give more of the name"
            }
        }
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
