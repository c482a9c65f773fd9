import LibBase

/// The account a token belongs to, as the keyring knows it: the server's
/// origin and the user id the server gave, plus the user name for people.
///
/// Two values are the same account when origin and user id match (the
/// account's identity in DESIGN.md); the name only appears in the keyring
/// item's label, so a renamed user keeps their token.
public struct KeyringAccount: Sendable, Hashable, CustomStringConvertible {
    /// The server's origin: scheme, host and port, e.g. `http://127.0.0.1:8080`.
    public let server: String
    /// The user's id on that server (from `GET /v1/me`).
    public let userID: String
    /// The user's name on that server, e.g. `alice`.
    public let userName: String
    /// Changes at every login (kept with the account, not secret): a copy
    /// in the kernel keyring's cache made under another stamp is stale (a
    /// login since, from any session) and is never used.
    public let cacheStamp: String
    /// The account's headless opt-in (`lib login --headless`): the token is
    /// also kept in the user's persistent keyring, for cron.
    public let headless: Bool

    public init(server: String, userID: String, userName: String, cacheStamp: String = "", headless: Bool = false) {
        self.server = server
        self.userID = userID
        self.userName = userName
        self.cacheStamp = cacheStamp
        self.headless = headless
    }

    /// The kernel key's description: the identity (origin and user id),
    /// never the display name.
    var kernelKeyDescription: String { "lib:token:\(server)#\(userID)" }

    /// `user@host[:port]`, as lib names accounts.
    public var description: String { "\(userName)@\(hostAndPort)" }

    /// The server as every message spells it (`ServerOrigin.hostAndPort`).
    var hostAndPort: String {
        (try? ServerOrigin(parsing: server))?.hostAndPort ?? server
    }

    /// What keyring managers (Seahorse, `secret-tool search`) show for the item.
    var keyringLabel: String { "lib token for \(description)" }

    public static func == (lhs: KeyringAccount, rhs: KeyringAccount) -> Bool {
        lhs.server == rhs.server && lhs.userID == rhs.userID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(server)
        hasher.combine(userID)
    }
}
