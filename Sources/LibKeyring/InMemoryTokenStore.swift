import Synchronization

/// A `TokenStore` in memory, for tests of the modules that use tokens: it
/// treats accounts as the Secret Service does (one token per origin and user
/// id) and can be told to fail, to test how callers report keyring errors.
public final class InMemoryTokenStore: TokenStore {
    private struct State {
        var tokens: [KeyringAccount: String]
        var failure: KeyringError?
    }

    private let state: Mutex<State>

    public init(tokens: [KeyringAccount: String] = [:]) {
        state = Mutex(State(tokens: tokens, failure: nil))
    }

    /// Makes every call throw `failure` until it is set back to nil.
    public func fail(with failure: KeyringError?) {
        state.withLock { $0.failure = failure }
    }

    /// The accounts that have a token now.
    public var accounts: Set<KeyringAccount> {
        state.withLock { Set($0.tokens.keys) }
    }

    public func store(token: String, for account: KeyringAccount) throws(KeyringError) {
        try state.withLock { (state) throws(KeyringError) in
            if let failure = state.failure { throw failure }
            // Replace the key too, so that a new user name is kept.
            state.tokens.removeValue(forKey: account)
            state.tokens[account] = token
        }
    }

    public func token(for account: KeyringAccount) throws(KeyringError) -> String {
        try state.withLock { (state) throws(KeyringError) in
            if let failure = state.failure { throw failure }
            guard let token = state.tokens[account] else { throw .notFound }
            return token
        }
    }

    public func deleteToken(for account: KeyringAccount) throws(KeyringError) {
        try state.withLock { (state) throws(KeyringError) in
            if let failure = state.failure { throw failure }
            guard state.tokens.removeValue(forKey: account) != nil else { throw .notFound }
        }
    }
}
