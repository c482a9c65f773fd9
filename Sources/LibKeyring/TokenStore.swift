/// Where lib keeps each account's token: the Secret Service in the product
/// (`SecretServiceTokenStore`, behind the kernel keyring's cache,
/// `KernelCachedTokenStore`), memory in tests of other modules
/// (`InMemoryTokenStore`).
///
/// Every call either succeeds or throws a `KeyringError` that says what went
/// wrong with the keyring and what to do about it; a keyring failure is never
/// to be reported as a rejected token. Calls block the calling thread for at
/// most their timeouts (see `KeyringTimeouts`).
public protocol TokenStore: Sendable {
    /// Saves `token` for `account`, replacing the token it had.
    func store(token: String, for account: KeyringAccount) throws(KeyringError)

    /// The token saved for `account`; `KeyringError.notFound` when there is none.
    func token(for account: KeyringAccount) throws(KeyringError) -> String

    /// Forgets the token of `account`; `KeyringError.notFound` when there was none.
    func deleteToken(for account: KeyringAccount) throws(KeyringError)

    /// The token and where it was found.
    func lookUp(for account: KeyringAccount) throws(KeyringError) -> FoundToken

    /// The token from the store of record, past every cache (logout, which
    /// must remove it there, asks it first).
    func storedToken(for account: KeyringAccount) throws(KeyringError) -> String

    /// The token from a cache alone (never the store of record, no D-Bus);
    /// nil when no cache has it.
    func cachedToken(for account: KeyringAccount) -> FoundToken?

    /// Removes every cached copy of the token of `account` (the server
    /// refused it), leaving the store of record alone.
    func forgetCachedCopies(for account: KeyringAccount)
}

extension TokenStore {
    public func lookUp(for account: KeyringAccount) throws(KeyringError) -> FoundToken {
        FoundToken(token: try token(for: account), source: .secretService)
    }

    public func forgetCachedCopies(for account: KeyringAccount) {}

    public func cachedToken(for account: KeyringAccount) -> FoundToken? { nil }

    public func storedToken(for account: KeyringAccount) throws(KeyringError) -> String { try token(for: account) }
}

/// A token and the keyring it came from (for `lib doctor`; never printed itself).
public struct FoundToken: Sendable {
    public let token: String
    public let source: TokenSource

    public init(token: String, source: TokenSource) {
        self.token = token
        self.source = source
    }
}

public enum TokenSource: Sendable, Equatable {
    /// The kernel keyring's cache in the session keyring, with the seconds
    /// it has left.
    case sessionCache(secondsLeft: Int)
    /// The user's persistent keyring (headless opt-in); it lives `expiry`
    /// seconds unused, reset at each use.
    case persistentKeyring(expiry: Int?)
    /// The Secret Service (the store of record); the copy it put in the
    /// cache lives `cachedFor` seconds (nil: not cached).
    case secretService(cachedFor: Int?)

    public static var secretService: TokenSource { .secretService(cachedFor: nil) }
}
