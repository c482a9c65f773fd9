import CSHA256
import CSodium

/// The server's cryptography, from libsodium: argon2id password hashes,
/// random tokens and identifiers, SHA-256 digests (on the processor's SHA
/// extensions when it has them).
enum Crypto {
    /// sodium_init is idempotent and thread-safe; called before any other use.
    static let ready: Bool = sodium_init() >= 0

    /// An argon2id hash string (with its salt and parameters) for storage.
    static func hashPassword(_ password: String) -> String? {
        guard ready else { return nil }
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let length = UInt64(password.utf8.count)
        let rc = password.withCString { pw in
            crypto_pwhash_str(&out, pw, length, UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        }
        guard rc == 0 else { return nil }
        return String(decoding: out.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func verifyPassword(_ password: String, hash: String) -> Bool {
        guard ready else { return false }
        let length = UInt64(password.utf8.count)
        return hash.withCString { h in
            password.withCString { pw in crypto_pwhash_str_verify(h, pw, length) == 0 }
        }
    }

    static func randomHex(bytes count: Int) -> String {
        _ = ready
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return hex(bytes)
    }

    static func sha256Hex(_ data: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        if csha256_hardware(data, data.count, &digest) != 0 { digest = portableSHA256(data) }
        return hex(digest)
    }

    /// libsodium's SHA-256, for processors without SHA extensions.
    static func portableSHA256(_ data: [UInt8]) -> [UInt8] {
        _ = ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&digest, data, UInt64(data.count))
        return digest
    }

    static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, b) in bytes.enumerated() {
                out[2 * i] = hexDigit(b >> 4)
                out[2 * i + 1] = hexDigit(b & 0x0F)
            }
            return bytes.count * 2
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
