import Foundation
import Testing
import TestSupport

/// Sources/lib/startup-order.txt names the functions gold lays out first
/// in lib (Package.swift); a list whose functions have been renamed or
/// removed orders nothing and costs start-up page faults silently. The
/// check runs on the release lib when one has been built, and otherwise on
/// the binary under test (the debug build, in `make test`): the list comes
/// from a release build, whose inlined and specialised functions a debug
/// build lacks, but 92% of its names are in the debug lib today, so
/// "fewer than half" is a list gone stale, not a debug build.
@Suite struct StartupOrderTests {
    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    @Test func mostOfTheListIsInTheBinary() throws {
        let list = try String(contentsOfFile: Self.packageDirectory + "/Sources/lib/startup-order.txt", encoding: .utf8)
        let release = Self.packageDirectory + "/.build/release/lib"
        let binary = FileManager.default.isExecutableFile(atPath: release) ? release : BuiltProducts.path("lib")
        let symbols = try Self.definedSymbols(binary)
        let fraction = Self.fractionPresent(list, in: symbols)
        #expect(fraction >= 0.5, "\(Int(fraction * 100))% of startup-order.txt is in \(binary): run make startup-order")
    }

    @Test func aListOfNamesTheBinaryLacksIsStale() throws {
        let symbols = try Self.definedSymbols(BuiltProducts.path("lib"))
        #expect(Self.fractionPresent(".text.$s3lib9RenamedAwayyyF\n.text.no_such_function\n", in: symbols) == 0)
        #expect(Self.fractionPresent(".text.main\n", in: symbols) == 1)
    }

    /// The share of the list's `.text.NAME` sections whose NAME the binary defines.
    static func fractionPresent(_ list: String, in symbols: Set<Substring>) -> Double {
        let names = list.split(separator: "\n").map { $0.hasPrefix(".text.") ? $0.dropFirst(".text.".count) : $0 }
        guard !names.isEmpty else { return 0 }
        return Double(names.filter { symbols.contains($0) }.count) / Double(names.count)
    }

    static func definedSymbols(_ binary: String) throws -> Set<Substring> {
        let result = try CommandRunner.run("/usr/bin/nm", ["--defined-only", binary])
        try #require(result.status == 0, "\(result)")
        return Set(result.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last })
    }
}
