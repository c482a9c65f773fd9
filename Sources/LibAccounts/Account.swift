import LibBase

/// A signed-in account. Its identity is the server's origin and the user id
/// the server gave (`GET /v1/me`), never the name typed at login; its name,
/// `user@host[:port]`, is what people see and type.
public struct Account: Sendable, Hashable {
    public let origin: ServerOrigin
    public let userID: String
    public let username: String

    public init(origin: ServerOrigin, userID: String, username: String) {
        self.origin = origin
        self.userID = userID
        self.username = username
    }

    public var name: String { "\(username)@\(origin.hostAndPort)" }

    /// Same server and same user id: the same identity, whatever the name.
    public func isSameIdentity(as other: Account) -> Bool {
        origin == other.origin && userID == other.userID
    }
}
