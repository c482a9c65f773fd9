/// Where lib keeps each account's token: the Secret Service in the product
/// (`SecretServiceTokenStore`), memory in tests of other modules
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
}
