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

        /// Whether `path` is the rule's directory or below it. Compared
        /// byte by byte, as the kernel compares paths (and cheaply: a shell
        /// prompt may ask with every rule in the file).
        public func covers(_ path: String) -> Bool {
            let directory = directory.utf8, path = path.utf8
            guard directory.count != 1 else { return directory.first == UInt8(ascii: "/") }
            guard path.starts(with: directory) else { return false }
            let rest = path.dropFirst(directory.count)
            return rest.isEmpty || rest.first == UInt8(ascii: "/")
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
        rules.filter { $0.covers(path) }.max { $0.directory.utf8.count < $1.directory.utf8.count }
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
        try load(from: configDirectory, covering: nil)
    }

    /// The rule for `path` read from the file, which keeps only the rules
    /// that cover it: a shell prompt asks this with every rule in the file.
    public static func rule(for path: String, in configDirectory: String) throws(AccountFileError) -> Rule? {
        try load(from: configDirectory, covering: path).rule(for: path)
    }

    /// Split as bytes: Swift's character-wise splitting cost a shell prompt
    /// more than the rest of `lib status --prompt`.
    private static func load(from configDirectory: String, covering target: String?) throws(AccountFileError) -> AccountRules {
        let path = path(in: configDirectory)
        guard let text = try PrivateFile.read(path) else { return AccountRules() }
        var rules: [Rule] = []
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")), line.first == UInt8(ascii: "/"),
                  line.index(after: tab) != line.endIndex, !line[line.index(after: tab)...].contains(UInt8(ascii: "\t"))
            else {
                throw AccountFileError.malformed(path: path, line: String(decoding: line, as: UTF8.self))
            }
            let directory = line[..<tab]
            if let target, !target.utf8.starts(with: directory) && directory.count > 1 { continue }
            let rule = Rule(directory: String(decoding: directory, as: UTF8.self),
                            account: String(decoding: line[line.index(after: tab)...], as: UTF8.self))
            if let target, !rule.covers(target) { continue }
            rules.append(rule)
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
