import CKernelKeyring
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's key retention service (keyrings(7)), as the token cache uses
/// it: "user" keys, read and written with the system calls directly (no
/// library to load, microseconds a call). Every failure is an errno.
enum KernelKeyring {
    /// Possessor: view, read, write, search, link, set attributes; this uid
    /// without possessing it: view only (it shows in `keyctl show`, its
    /// payload does not); group and others: nothing.
    static let cachePermissions: UInt32 = 0x3f01_0000

    struct Failure: Error, Equatable {
        let errno: Int32
        var isMissing: Bool { [ENOKEY, EKEYEXPIRED, EKEYREVOKED].contains(errno) }
        var isUnsupported: Bool { [EOPNOTSUPP, ENOSYS, EPERM].contains(errno) }
    }

    /// The session keyring's id; the user session keyring when the process
    /// has none (as in containers and under cron without pam_keyinit).
    static func sessionKeyring() throws(Failure) -> Int32 {
        try check(ckeyring_keyring_id(Int32(CKEYRING_SESSION), 0))
    }

    /// The user's persistent keyring (KEYCTL_GET_PERSISTENT), linked into
    /// this process's keyring so that it is possessed while lib runs.
    /// Each call resets its expiry.
    static func persistentKeyring() throws(Failure) -> Int32 {
        try check(ckeyring_persistent(Int32(CKEYRING_PROCESS)))
    }

    /// The key of `description` in a keyring this process possesses.
    static func request(_ description: String) throws(Failure) -> Int32 {
        try check(ckeyring_request_user_key(description))
    }

    static func search(_ description: String, in keyring: Int32) throws(Failure) -> Int32 {
        try check(ckeyring_search_user_key(keyring, description))
    }

    /// Adds (or replaces) a key; then sets its permissions and time-out.
    @discardableResult
    static func add(_ description: String, payload: [UInt8], to keyring: Int32, timeoutSeconds: UInt32) throws(Failure) -> Int32 {
        let key = try check(payload.withUnsafeBytes { ckeyring_add_user_key(description, $0.baseAddress, $0.count, keyring) })
        do {
            try check(ckeyring_set_permissions(key, cachePermissions))
            try check(ckeyring_set_timeout(key, timeoutSeconds))
        } catch {
            _ = ckeyring_invalidate(key)
            throw error
        }
        return key
    }

    /// The payload of `key`; the buffer is zeroed before it is freed.
    static func read(_ key: Int32) throws(Failure) -> [UInt8] {
        var capacity = 512
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let length = buffer.withUnsafeMutableBytes { ckeyring_read(key, $0.baseAddress, $0.count) }
            if length < 0 { throw Failure(errno: Int32(-length)) }
            if length <= capacity { return Array(buffer.prefix(Int(length))) }
            wipe(&buffer)
            capacity = Int(length)
        }
    }

    /// The owner uid of `key` (from KEYCTL_DESCRIBE).
    static func owner(of key: Int32) throws(Failure) -> UInt32? {
        var buffer = [CChar](repeating: 0, count: 4200)
        let length = buffer.withUnsafeMutableBufferPointer { ckeyring_describe(key, $0.baseAddress, $0.count) }
        if length < 0 { throw Failure(errno: Int32(-length)) }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == "user" else { return nil }
        return UInt32(fields[1])
    }

    static func invalidate(_ key: Int32) {
        _ = ckeyring_invalidate(key)
    }

    /// A new anonymous session keyring for this process and what it runs.
    static func joinNewSession() throws(Failure) -> Int32 {
        try check(ckeyring_join_new_session())
    }

    /// How long the persistent keyring lives unused, in seconds
    /// (/proc/sys/kernel/keys/persistent_keyring_expiry), if readable.
    static func persistentKeyringExpiry() -> Int? {
        let descriptor = open("/proc/sys/kernel/keys/persistent_keyring_expiry", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer.prefix(count).filter { (0x30...0x39).contains($0) }, as: UTF8.self))
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    @discardableResult
    private static func check<T: SignedInteger>(_ result: T) throws(Failure) -> T {
        if result < 0 { throw Failure(errno: Int32(-result)) }
        return result
    }
}
