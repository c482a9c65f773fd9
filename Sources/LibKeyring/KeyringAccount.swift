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

    public init(server: String, userID: String, userName: String) {
        self.server = server
        self.userID = userID
        self.userName = userName
    }

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
