import CSecret
#if canImport(Glibc)
import Glibc
#endif

/// Keeps tokens in the Secret Service (gnome-keyring, KeePassXC, KWallet)
/// through libsecret, which CSecret loads on the first call, so that
/// commands that never touch the keyring never pay for loading it.
///
/// Each token is one item in the default collection, with the attributes
/// `server` (the origin) and `user-id` under the schema `org.lib.Token`, and
/// a label such as "lib token for alice@127.0.0.1:8080". When
/// DBUS_SESSION_BUS_ADDRESS is unset (cron), the bus socket in the runtime
/// directory is used (`SessionBusLocator`). There is no fallback to a file:
/// without a keyring every call fails with a `KeyringError`.
public struct SecretServiceTokenStore: TokenStore {
    public static let schemaName = "org.lib.Token"
    public static let serverAttribute = "server"
    public static let userIDAttribute = "user-id"

    public let timeouts: KeyringTimeouts

    public init(timeouts: KeyringTimeouts = KeyringTimeouts()) {
        self.timeouts = timeouts
    }

    /// Makes CSecret load libsecret from `fileName` instead of
    /// "libsecret-1.so.0". For tests of the "not installed" path; only
    /// before the first keyring call. Returns false when it is too late.
    public static func useLibrary(fileName: String) -> Bool {
        csecret_use_library(fileName) == 0
    }

    /// Loads libsecret now instead of at the first call, e.g. to time it.
    public static func loadLibrary() throws(KeyringError) {
        var message = [CChar](repeating: 0, count: 512)
        let status = message.withUnsafeMutableBufferPointer { csecret_load($0.baseAddress, $0.count) }
        if let error = KeyringError(
            secretStatus: status, message: text(of: message), timeouts: KeyringTimeouts(), promptCouldBeShown: false)
        {
            throw error
        }
    }

    public func store(token: String, for account: KeyringAccount) throws(KeyringError) {
        let label = account.keyringLabel
        try perform(for: account) { query, message, capacity in
            token.withCString { bytes in
                csecret_store(&query, label, bytes, token.utf8.count, message, capacity)
            }
        }
    }

    public func token(for account: KeyringAccount) throws(KeyringError) -> String {
        var secret: UnsafeMutablePointer<CChar>?
        var length = 0
        try perform(for: account) { query, message, capacity in
            csecret_lookup(&query, &secret, &length, message, capacity)
        }
        guard let secret else { throw .other(detail: "the keyring returned no secret") }
        defer { csecret_free_secret(secret, length) }
        return secret.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    public func deleteToken(for account: KeyringAccount) throws(KeyringError) {
        try perform(for: account) { query, message, capacity in
            csecret_delete(&query, message, capacity)
        }
    }

    /// Builds the query for `account`, runs `call` with it and a message
    /// buffer, and turns a failure status into a `KeyringError`.
    private func perform(
        for account: KeyringAccount,
        _ call: (inout csecret_query, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(KeyringError) {
        SessionBusLocator.exportFallbackAddressIfNeeded()
        let names = [Self.serverAttribute, Self.userIDAttribute].map(Self.cStringCopy)
        let values = [account.server, account.userID].map(Self.cStringCopy)
        defer { (names + values).forEach { free($0) } }
        let constNames = names.map { $0.map { UnsafePointer($0) } }
        let constValues = values.map { $0.map { UnsafePointer($0) } }
        var message = [CChar](repeating: 0, count: 512)
        let status = Self.schemaName.withCString { schema in
            constNames.withUnsafeBufferPointer { names in
                constValues.withUnsafeBufferPointer { values in
                    var query = csecret_query(
                        schema_name: schema,
                        attribute_names: names.baseAddress,
                        attribute_values: values.baseAddress,
                        attribute_count: UInt32(names.count),
                        call_timeout_ms: Self.milliseconds(timeouts.call),
                        unlock_timeout_ms: Self.milliseconds(timeouts.unlockPrompt))
                    return message.withUnsafeMutableBufferPointer { buffer in
                        guard let start = buffer.baseAddress else { return Int32(CSECRET_FAILED.rawValue) }
                        return call(&query, start, buffer.count)
                    }
                }
            }
        }
        if let error = KeyringError(
            secretStatus: status, message: Self.text(of: message), timeouts: timeouts,
            promptCouldBeShown: KeyringError.promptCouldBeShown(environment: Self.displayEnvironment()))
        {
            throw error
        }
    }

    /// The NUL-terminated text in a message buffer.
    private static func text(of message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A malloc'ed copy (nil when memory runs out, which CSecret reports).
    private static func cStringCopy(_ text: String) -> UnsafeMutablePointer<CChar>? {
        strdup(text)
    }

    private static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(0, total))
    }

    private static func displayEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }
}
