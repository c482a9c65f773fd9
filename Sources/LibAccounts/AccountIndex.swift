#if canImport(Glibc)
import Glibc
import LibBase
#endif

/// The list of signed-in accounts and which one is current, kept in two
/// small files under the config directory so that `lib status` reads them
/// without SQLite: `accounts` (one account a line: name, origin, user id,
/// user name, login stamp, headless opt-in, alias, separated by tabs) and
/// `current` (a name).
public struct AccountIndex: Sendable, Equatable {
    public var accounts: [Account]
    public var currentName: String?

    public init(accounts: [Account] = [], currentName: String? = nil) {
        self.accounts = accounts
        self.currentName = currentName
    }

    public var current: Account? { accounts.first { $0.name == currentName } }

    public func account(named name: String) -> Account? { accounts.first { $0.name == name } }

    /// The account whose alias is `alias`.
    public func account(aliased alias: String) -> Account? { accounts.first { $0.alias == alias } }

    /// Adds the account, replacing one with the same name (whose alias it
    /// keeps unless it has its own), and makes it current.
    public mutating func add(_ account: Account) {
        var account = account
        if account.alias == nil { account.alias = self.account(named: account.name)?.alias }
        accounts.removeAll { $0.name == account.name }
        accounts.append(account)
        currentName = account.name
    }

    /// Gives the account named `name` this alias (nil: none).
    public mutating func setAlias(_ alias: String?, of name: String) {
        for i in accounts.indices where accounts[i].name == name { accounts[i].alias = alias }
    }

    /// Removes the account; the current account moves to the first one left, or none.
    public mutating func remove(named name: String) {
        accounts.removeAll { $0.name == name }
        if currentName == name || current == nil { currentName = accounts.first?.name }
    }

    // MARK: Files

    public static func load(from configDirectory: String) throws(AccountFileError) -> AccountIndex {
        let list = try PrivateFile.read(configDirectory + "/accounts") ?? ""
        var accounts: [Account] = []
        for line in list.split(separator: "\n" as Character) {
            let fields = line.split(separator: "\t" as Character, omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let origin = try? ServerOrigin(parsing: fields[1]), UserName.isValid(fields[3]) else {
                throw AccountFileError.malformed(path: configDirectory + "/accounts", line: String(line))
            }
            // Fields 5, 6 and 7 (later additions, absent from older files):
            // the login stamp, the headless opt-in ("headless"), the alias ("-": none).
            accounts.append(Account(origin: origin, userID: fields[2], username: fields[3],
                                    tokenStamp: fields.count > 4 ? fields[4] : "",
                                    headless: fields.count > 5 && fields[5] == "headless",
                                    alias: fields.count > 6 && AccountAlias.isValid(fields[6]) ? fields[6] : nil))
        }
        let current = try PrivateFile.read(configDirectory + "/current")?.split(separator: "\n" as Character).first.map(String.init)
        return AccountIndex(accounts: accounts, currentName: current)
    }

    /// Loads the index, lets `change` edit it, and saves what changed, all
    /// under `accounts.lock`: two commands that edit it at once (a login in
    /// one shell, a switch in another) never lose one's change, and a
    /// switch rewrites `current` alone.
    public static func update<T>(in configDirectory: String, _ change: (inout AccountIndex) throws -> T) throws -> T {
        try PrivateFile.makeDirectory(configDirectory)
        return try PrivateFile.holdingLock(configDirectory + "/accounts.lock") {
            let before = try load(from: configDirectory)
            var index = before
            let result = try change(&index)
            if index.accounts.map(\.line) != before.accounts.map(\.line) {
                try index.save(to: configDirectory)
            } else if index.currentName != before.currentName {
                try index.saveCurrent(to: configDirectory)
            }
            return result
        }
    }

    /// Writes `current` alone (atomically: a new file renamed over it).
    public func saveCurrent(to configDirectory: String) throws(AccountFileError) {
        try PrivateFile.writeAtomically(configDirectory + "/current", currentName.map { $0 + "\n" } ?? "")
    }

    public func save(to configDirectory: String) throws(AccountFileError) {
        try PrivateFile.makeDirectory(configDirectory)
        let list = accounts.map(\.line).joined()
        try PrivateFile.writeAtomically(configDirectory + "/accounts", list)
        try PrivateFile.writeAtomically(configDirectory + "/current", currentName.map { $0 + "\n" } ?? "")
    }
}

extension Account {
    /// The account's line in `accounts`.
    fileprivate var line: String {
        "\(name)\t\(origin)\t\(userID)\t\(username)\t\(tokenStamp)\t\(headless ? "headless" : "-")\t\(alias ?? "-")\n"
    }
}
