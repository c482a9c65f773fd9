import LibBase

/// A signed-in account. Its identity is the server's origin and the user id
/// the server gave (`GET /v1/me`), never the name typed at login; its name,
/// `user@host[:port]`, is what people see and type.
public struct Account: Sendable, Hashable {
    public let origin: ServerOrigin
    public let userID: String
    public let username: String
    /// Made anew at each login (random, not secret): the kernel keyring's
    /// cached copies of the token carry it, so a copy from before the last
    /// login is never used. Empty in files from before it existed.
    public let tokenStamp: String
    /// The headless opt-in (`lib login --headless`): the token is also kept
    /// in the user's persistent keyring, for cron and systemd user services.
    public let headless: Bool
    /// A short name of the user's choosing (`lib login --alias`, `lib switch
    /// ACCOUNT --alias`): the prompt shows it, and `-A` takes it.
    public var alias: String?

    public init(origin: ServerOrigin, userID: String, username: String, tokenStamp: String = "", headless: Bool = false,
                alias: String? = nil) {
        self.origin = origin
        self.userID = userID
        self.username = username
        self.tokenStamp = tokenStamp
        self.headless = headless
        self.alias = alias
    }

    /// A new random stamp for a login (128 bits, hex).
    public static func newTokenStamp() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Equal when origin, user id and name are (the stamp, the opt-in and
    /// the alias are settings of the account, not what it is).
    public static func == (lhs: Account, rhs: Account) -> Bool {
        lhs.origin == rhs.origin && lhs.userID == rhs.userID && lhs.username == rhs.username
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(origin)
        hasher.combine(userID)
        hasher.combine(username)
    }

    public var name: String { "\(username)@\(origin.hostAndPort)" }

    /// Same server and same user id: the same identity, whatever the name.
    public func isSameIdentity(as other: Account) -> Bool {
        origin == other.origin && userID == other.userID
    }
}
