/// The aliases of signed-out accounts, kept so that signing in again as the
/// same identity (server origin and user id) brings its alias back. One
/// line per identity in `kept-aliases` under the config directory: origin,
/// user id, alias, separated by tabs. Read and written only by login and
/// logout, under `accounts.lock` (AccountIndex.update), never by status.
public struct KeptAliases: Sendable, Equatable {
    private var entries: [Entry]

    struct Entry: Sendable, Equatable {
        var origin: String
        var userID: String
        var alias: String
    }

    public static func load(from configDirectory: String) throws(AccountFileError) -> KeptAliases {
        let text = try PrivateFile.read(path(configDirectory)) ?? ""
        // A line that does not read is dropped, not fatal: a kept alias is a
        // convenience, and the file is lib's own.
        let entries = text.split(separator: "\n" as Character).compactMap { line -> Entry? in
            let fields = line.split(separator: "\t" as Character, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, AccountAlias.isValid(fields[2]) else { return nil }
            return Entry(origin: fields[0], userID: fields[1], alias: fields[2])
        }
        return KeptAliases(entries: entries)
    }

    public func save(to configDirectory: String) throws(AccountFileError) {
        try PrivateFile.writeAtomically(Self.path(configDirectory),
                                        entries.map { "\($0.origin)\t\($0.userID)\t\($0.alias)\n" }.joined())
    }

    /// The alias kept for the account's identity.
    public func alias(of account: Account) -> String? {
        entries.first { $0.origin == account.origin.description && $0.userID == account.userID }?.alias
    }

    /// Keeps the account's alias (if it has one) for its next sign-in.
    public mutating func keep(_ account: Account) {
        forget(account)
        if let alias = account.alias {
            entries.append(Entry(origin: account.origin.description, userID: account.userID, alias: alias))
        }
    }

    public mutating func forget(_ account: Account) {
        entries.removeAll { $0.origin == account.origin.description && $0.userID == account.userID }
    }

    static func path(_ configDirectory: String) -> String { configDirectory + "/kept-aliases" }
}
