import Testing

@testable import LibNet

@Suite struct PathProbeTests {
    @Test func loopbackIsAvailable() {
        #expect(PathProbe.status(for: "127.0.0.1", port: 80) == .available)
        #expect(PathProbe.status(forAddresses: ["127.0.0.1"]) == .available)
    }

    @Test func notAnAddressIsUnknown() {
        #expect(PathProbe.status(forAddresses: ["books.example"]) == .unknown)
        #expect(PathProbe.status(forAddresses: []) == .unknown)
    }

    @Test func literalsAreRecognised() {
        #expect(PathProbe.isIPLiteral("192.0.2.1"))
        #expect(PathProbe.isIPLiteral("2001:db8::1"))
        #expect(!PathProbe.isIPLiteral("books.example"))
        #expect(!PathProbe.isIPLiteral("[::1]"))
    }

    /// The probe's cost, measured (printed for the record, bounded loosely).
    @Test func probeCostsMicroseconds() {
        let clock = ContinuousClock()
        let count = 10_000
        let elapsed = clock.measure {
            for _ in 0..<count { _ = PathProbe.status(for: "127.0.0.1", port: 443) }
        }
        let perProbe = Double(elapsed.components.attoseconds) / 1e12 / Double(count) + Double(elapsed.components.seconds) * 1e6 / Double(count)
        print("PathProbe.status(for: 127.0.0.1): \(perProbe) µs per probe over \(count)")
        let doc = clock.measure {
            for _ in 0..<count { _ = PathProbe.status(for: "books.example", port: 443) }
        }
        let perDoc = Double(doc.components.attoseconds) / 1e12 / Double(count) + Double(doc.components.seconds) * 1e6 / Double(count)
        print("PathProbe.status(for: books.example) (documentation addresses): \(perDoc) µs per probe over \(count)")
        #expect(perProbe < 500)
    }

    @Test func millisecondsRoundUp() {
        #expect(PathWatcher.milliseconds(rounding: .microseconds(1)) == 1)
        #expect(PathWatcher.milliseconds(rounding: .seconds(2)) == 2000)
        #expect(PathWatcher.milliseconds(rounding: .zero) == 0)
    }
}
