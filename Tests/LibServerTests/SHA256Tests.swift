import CSHA256
import Testing
@testable import LibServer

/// The digests lib-server stores (tokens' and idempotency records') are the
/// same whichever SHA-256 computes them: the processor's SHA extensions
/// (`CSHA256`) or libsodium's portable one.
@Suite struct SHA256Tests {
    @Test func knownAnswers() {
        #expect(Crypto.sha256Hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Crypto.sha256Hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Crypto.sha256Hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Every length from 0 to 1,000 bytes: each way the last block is padded
    /// (one block or two, the length's bytes split at the boundary).
    @Test func theExtensionsAgreeWithLibsodiumAtEveryLength() throws {
        guard csha256_hardware_available() != 0 else {
            var digest = [UInt8](repeating: 0, count: 32)
            #expect(csha256_hardware([1, 2, 3], 3, &digest) == -1)
            return
        }
        var generator = SystemRandomNumberGenerator()
        let data = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...data.count {
            let bytes = Array(data[..<length])
            var digest = [UInt8](repeating: 0, count: 32)
            #expect(csha256_hardware(bytes, bytes.count, &digest) == 0)
            #expect(digest == Crypto.portableSHA256(bytes), "length \(length)")
        }
    }
}
