#if canImport(Glibc)
import Glibc
#endif

/// The Secret Service (the store of record) behind a cache in the kernel's
/// keyring, so that a warm command reads its token in microseconds and
/// loads neither GLib nor libsecret nor talks to D-Bus.
///
/// - The cache is one "user" key per account identity, named
///   `lib:token:ORIGIN#USER-ID` (never the display name), in the session
///   keyring (the user session keyring where the process has none), found
///   with request_key(2). Only a possessor reads it; this uid without
///   possessing it may only see that it exists; it times out after
///   `cacheSeconds` (LIB_TOKEN_CACHE_SECONDS, default 900; 0: no cache).
/// - With the account's headless opt-in the token is also kept in the
///   user's persistent keyring (KEYCTL_GET_PERSISTENT), which outlives the
///   login session, so that cron and systemd user services find it.
/// - Each copy carries the account's login stamp: a copy from before the
///   last login (made in any session) is stale, removed and never used.
///   Logout and a 401 remove every copy this process can reach.
public struct KernelCachedTokenStore: TokenStore {
    public static let defaultCacheSeconds = 900
    public static let cacheSecondsVariable = "LIB_TOKEN_CACHE_SECONDS"
    static let payloadHeader = "lib-token-cache 1"

    public let backing: any TokenStore
    public let cacheSeconds: Int
    /// Seconds since 1970: when a cached copy stops being used.
    let now: @Sendable () -> Int

    public init(backing: any TokenStore, cacheSeconds: Int = KernelCachedTokenStore.configuredCacheSeconds(),
                now: @escaping @Sendable () -> Int = { Int(time(nil)) }) {
        self.backing = backing
        self.cacheSeconds = max(0, cacheSeconds)
        self.now = now
    }

    /// LIB_TOKEN_CACHE_SECONDS when it is a whole number of seconds (at most
    /// a day), else the default.
    public static func configuredCacheSeconds() -> Int {
        guard let text = getenv(cacheSecondsVariable).map({ String(cString: $0) }), let seconds = Int(text),
              (0...86_400).contains(seconds) else { return defaultCacheSeconds }
        return seconds
    }

    public func store(token: String, for account: KeyringAccount) throws(KeyringError) {
        // The persistent keyring first: a kernel without it fails the
        // headless login before the store of record changes.
        if account.headless {
            var payload = Self.payload(token, account, expires: 0)
            defer { KernelKeyring.wipe(&payload) }
            do {
                let keyring = try KernelKeyring.persistentKeyring()
                try KernelKeyring.add(account.kernelKeyDescription, payload: payload, to: keyring, timeoutSeconds: 0)
            } catch {
                throw .persistentKeyringUnavailable(errno: error.errno)
            }
        }
        do {
            try backing.store(token: token, for: account)
        } catch {
            if account.headless { removePersistentCopy(of: account) }
            throw error
        }
        fillSessionCache(token, for: account)
        if !account.headless { removePersistentCopy(of: account) }
    }

    public func token(for account: KeyringAccount) throws(KeyringError) -> String {
        try lookUp(for: account).token
    }

    public func lookUp(for account: KeyringAccount) throws(KeyringError) -> FoundToken {
        if let found = cachedToken(for: account) { return found }
        let token = try backing.token(for: account)
        let cached = fillSessionCache(token, for: account)
        return FoundToken(token: token, source: .secretService(cachedFor: cached ? cacheSeconds : nil))
    }

    public func storedToken(for account: KeyringAccount) throws(KeyringError) -> String {
        try backing.token(for: account)
    }

    /// The session keyring's copy, else (with the headless opt-in) the
    /// persistent keyring's: system calls only.
    public func cachedToken(for account: KeyringAccount) -> FoundToken? {
        let description = account.kernelKeyDescription
        if cacheSeconds > 0 || account.headless, let key = try? KernelKeyring.request(description),
           let found = usableCopy(key, for: account) {
            return found
        }
        if account.headless, let keyring = try? KernelKeyring.persistentKeyring(),
           let key = try? KernelKeyring.search(description, in: keyring), let found = usableCopy(key, for: account) {
            return found
        }
        return nil
    }

    public func deleteToken(for account: KeyringAccount) throws(KeyringError) {
        forgetCachedCopies(for: account)
        try backing.deleteToken(for: account)
    }

    public func forgetCachedCopies(for account: KeyringAccount) {
        // request_key finds one copy at a time (session keyring first, then
        // what it links); a handful of rounds empties them all.
        for _ in 0..<8 {
            guard let key = try? KernelKeyring.request(account.kernelKeyDescription) else { break }
            KernelKeyring.invalidate(key)
        }
        removePersistentCopy(of: account)
        backing.forgetCachedCopies(for: account)
    }

    // MARK: - Copies

    /// Puts `token` in the session keyring's cache; false when there is no
    /// cache (LIB_TOKEN_CACHE_SECONDS=0) or the kernel refused (the command
    /// goes on without it).
    @discardableResult
    private func fillSessionCache(_ token: String, for account: KeyringAccount) -> Bool {
        guard cacheSeconds > 0 else { return false }
        var payload = Self.payload(token, account, expires: now() + cacheSeconds)
        defer { KernelKeyring.wipe(&payload) }
        guard let keyring = try? KernelKeyring.sessionKeyring(),
              (try? KernelKeyring.add(account.kernelKeyDescription, payload: payload, to: keyring,
                                      timeoutSeconds: UInt32(cacheSeconds))) != nil
        else { return false }
        return true
    }

    private func removePersistentCopy(of account: KeyringAccount) {
        guard let keyring = try? KernelKeyring.persistentKeyring() else { return }
        while let key = try? KernelKeyring.search(account.kernelKeyDescription, in: keyring) {
            KernelKeyring.invalidate(key)
            // Invalidation is immediate for searches; stop if the kernel disagrees.
            if (try? KernelKeyring.search(account.kernelKeyDescription, in: keyring)) == key { break }
        }
    }

    /// The token in `key` when the key is this uid's and was made for this
    /// login of `account`; a stale copy is removed.
    private func usableCopy(_ key: Int32, for account: KeyringAccount) -> FoundToken? {
        guard (try? KernelKeyring.owner(of: key)) == getuid(), var bytes = try? KernelKeyring.read(key) else { return nil }
        defer { KernelKeyring.wipe(&bytes) }
        guard let entry = Self.parse(bytes), entry.stamp == account.cacheStamp else {
            KernelKeyring.invalidate(key)
            return nil
        }
        let now = now()
        if entry.expires == 0 {
            return FoundToken(token: entry.token, source: .persistentKeyring(expiry: KernelKeyring.persistentKeyringExpiry()))
        }
        guard entry.expires > now else { return nil }
        return FoundToken(token: entry.token, source: .sessionCache(secondsLeft: entry.expires - now))
    }

    /// "lib-token-cache 1\nSTAMP\nEXPIRES\nTOKEN": the stamp of the login it
    /// was made for, when it stops being used (Unix time; 0: the persistent
    /// keyring's copy, which has no time-out of its own), the token.
    static func payload(_ token: String, _ account: KeyringAccount, expires: Int) -> [UInt8] {
        Array("\(payloadHeader)\n\(account.cacheStamp)\n\(expires)\n".utf8) + Array(token.utf8)
    }

    static func parse(_ bytes: [UInt8]) -> (stamp: String, expires: Int, token: String)? {
        let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, String(decoding: parts[0], as: UTF8.self) == payloadHeader,
              let expires = Int(String(decoding: parts[2], as: UTF8.self)), !parts[3].isEmpty
        else { return nil }
        return (String(decoding: parts[1], as: UTF8.self), expires, String(decoding: parts[3], as: UTF8.self))
    }
}
