#if canImport(Glibc)
import Glibc
#endif

/// The per-user rules (`rules` in the config directory, `lib rule`): a
/// directory, and the account that commands run in it or below it act on
/// when neither `-A` nor `LIB_ACCOUNT` names one. One rule a line, the
/// directory and the account separated by a tab; the account is a full
/// name, or a server's origin (`https://host[:port]`) meaning the one
/// account signed in there.
public struct AccountRules: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        /// An absolute path without symbolic links, without a trailing `/`
        /// (but `/` itself).
        public var directory: String
        public var account: String

        public init(directory: String, account: String) {
            self.directory = directory
            self.account = account
        }

        /// Whether `path` is the rule's directory or below it.
        public func covers(_ path: String) -> Bool {
            directory == "/" || path == directory || path.hasPrefix(directory + "/")
        }

        /// Whether the rule names its account by the server's origin.
        public var namesOrigin: Bool { account.hasPrefix("http://") || account.hasPrefix("https://") }
    }

    public var rules: [Rule]

    public init(rules: [Rule] = []) {
        self.rules = rules
    }

    /// The rule of the deepest directory that holds `path`.
    public func rule(for path: String) -> Rule? {
        rules.filter { $0.covers(path) }.max { $0.directory.count < $1.directory.count }
    }

    /// Adds the rule, replacing the one for the same directory.
    public mutating func set(_ rule: Rule) {
        rules.removeAll { $0.directory == rule.directory }
        rules.append(rule)
    }

    /// Removes the rule for `directory`; false when there was none.
    public mutating func remove(directory: String) -> Bool {
        let before = rules.count
        rules.removeAll { $0.directory == directory }
        return rules.count != before
    }

    /// Whether the text can stand in the file (no tab, no line break, not empty).
    public static func isStorable(_ text: String) -> Bool {
        !text.isEmpty && !text.contains { $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }

    // MARK: The file

    public static func path(in configDirectory: String) -> String { configDirectory + "/rules" }

    /// The rules; none when the file does not exist.
    public static func load(from configDirectory: String) throws(AccountFileError) -> AccountRules {
        let path = path(in: configDirectory)
        guard let text = try PrivateFile.read(path) else { return AccountRules() }
        var rules: [Rule] = []
        for line in text.split(separator: "\n" as Character) where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t" as Character, omittingEmptySubsequences: false)
            guard fields.count == 2, fields[0].hasPrefix("/"), !fields[1].isEmpty else {
                throw AccountFileError.malformed(path: path, line: String(line))
            }
            rules.append(Rule(directory: String(fields[0]), account: String(fields[1])))
        }
        return AccountRules(rules: rules)
    }

    /// Writes the file at once (a new file renamed over it), or removes it
    /// when no rule is left.
    public func save(to configDirectory: String) throws(AccountFileError) {
        let path = Self.path(in: configDirectory)
        if rules.isEmpty {
            if unlink(path) != 0 && errno != ENOENT { throw PrivateFile.failure(path, "remove") }
            return
        }
        try PrivateFile.makeDirectory(configDirectory)
        try PrivateFile.writeAtomically(path, rules.map { "\($0.directory)\t\($0.account)\n" }.joined())
    }
}
