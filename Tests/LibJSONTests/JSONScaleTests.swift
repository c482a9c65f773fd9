import Foundation
import LibJSON
import Testing

/// Large and hostile objects (issue 23): lookups by a hash index that keeps
/// member order, parse time linear in the size, and caps that refuse a text
/// before it is built. Serialized: the timings must not share the CPU with
/// each other.
@Suite(.serialized) struct JSONScaleTests {
    @Test func aLargeObjectKeepsItsOrderThroughSetsReplacementsAndRemovals() {
        var object = JSONObject()
        for n in 0..<100 { object["k\(n)"] = .integer(Int64(n)) }
        object["k50"] = "replaced"
        object["k10"] = nil
        object["k5"] = nil
        object["new"] = true
        #expect(object.count == 99)
        #expect(object.keys.prefix(6) == ["k0", "k1", "k2", "k3", "k4", "k6"])
        #expect(object.keys.last == "new")
        #expect(object["k50"] == "replaced" && object["k99"] == .integer(99) && object["k10"] == nil && object["new"] == true)
        // Back under the small size: lookups still right.
        for n in 11..<100 where n != 50 { object["k\(n)"] = nil }
        #expect(object.keys == ["k0", "k1", "k2", "k3", "k4", "k6", "k7", "k8", "k9", "k50", "new"])
        #expect(object["k6"] == .integer(6) && object["k50"] == "replaced")
    }

    /// Best of three, so that a moment of another process's work on the
    /// machine does not count.
    static func parseSeconds(members: Int, runs: Int = 3, key: (Int) -> String) throws -> Double {
        let text = Array(("{" + (0..<members).map { "\"\(key($0))\":\($0)" }.joined(separator: ",") + "}").utf8)
        var best = Double.infinity
        for _ in 0..<runs {
            let started = Date()
            let value = try JSONParser.parse(text)
            best = min(best, Date().timeIntervalSince(started))
            #expect(value.objectValue?.count == members)
        }
        return best
    }

    /// Keys with a long common prefix, short keys, keys that differ at the
    /// end: eight times the members takes about eight times as long (a list
    /// searched per member took 64 times), bounded here at 20 for a busy
    /// machine.
    @Test(arguments: ["k", "a-long-common-prefix-shared-by-every-key-", "é😀"])
    func parseTimeStaysLinearInTheNumberOfMembers(prefix: String) throws {
        let small = try Self.parseSeconds(members: 4_000) { "\(prefix)\($0)" }
        let large = try Self.parseSeconds(members: 32_000) { "\(prefix)\($0)" }
        #expect(large < small * 20, "4,000 members: \(small) s; 32,000: \(large) s")
    }

    /// 0.47 s in a debug build on a loaded machine (6.7 s of CPU before).
    @Test func sixtyFourThousandMembersParseInUnderTwoSecondsInADebugBuild() throws {
        let seconds = try Self.parseSeconds(members: 64_000, runs: 1) { "k\($0)" }
        #expect(seconds < 2, "64,000 members took \(seconds) s")
    }

    @Test func membersAndNestingAreCappedWithReasonsThatSaySo() throws {
        let limits = JSONParser.Limits(maxDepth: 4, maxMembers: 3)
        #expect(try JSONParser.parse(#"{"a":1,"b":2,"c":3}"#, limits: limits).objectValue?.count == 3)
        do {
            _ = try JSONParser.parse(#"{"a":1,"b":2,"c":3,"d":4}"#, limits: limits)
            Issue.record("four members passed a cap of three")
        } catch {
            #expect(error.exceedsSizeLimit && error.reason == "an object with more than 3 members", "\(error)")
        }
        do {
            _ = try JSONParser.parse("[[[[[1]]]]]", limits: limits)
            Issue.record("five levels passed a cap of four")
        } catch {
            #expect(!error.exceedsSizeLimit && error.reason == "nesting deeper than 4 levels", "\(error)")
        }
    }

    /// JSON output escapes what a terminal would act on, beyond RFC 8259's C0.
    @Test func theWriterEscapesDelC1AndBidiControlsAndReadsThemBack() throws {
        let text = "a\u{1B}]0;x\u{07}b\u{7F}c\u{85}\u{9B}d\u{202E}e\u{2066}f\u{200F}g é 😀"
        let written = JSONValue.string(text).serialized()
        #expect(written == #""a\u001b]0;x\u0007b\u007fc\u0085\u009bd\u202ee\u2066f\u200fg é 😀""#)
        #expect(try JSONParser.parse(written) == .string(text))
        #expect(!written.unicodeScalars.contains { $0.isTerminalControl })
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0x61, 0xC3, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect((try? JSONParser.parse([0x22, 0xC3, 0xA9, 0x22])) == .string("é"))
    }
}
