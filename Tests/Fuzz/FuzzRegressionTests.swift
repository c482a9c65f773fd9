import Foundation
import Testing

/// Replays every saved fuzz input — the corpus each target has grown and
/// every input that ever made one fail — through the same properties the
/// fuzzers check (`make fuzz`), so that a fixed finding stays fixed.
@Suite struct FuzzRegressionTests {
    static let properties: [String: any FuzzProperty.Type] = [
        "json": JSONRoundTripProperty.self,
        "http-request": HTTPRequestHeadProperty.self,
        "http-connection": HTTPConnectionProperty.self,
        "cli-arguments": CLIArgumentProperty.self,
        "http-date": HTTPDateProperty.self,
        "client-answer": ClientAnswerProperty.self,
    ]

    static let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func inputs(_ kind: String, _ target: String) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: properties.keys.sorted())
    func savedInputsKeepTheirProperty(target: String) throws {
        let property = try #require(Self.properties[target])
        let saved = Self.inputs("Regressions", target) + Self.inputs("Corpus", target)
        #expect(!Self.inputs("Corpus", target).isEmpty, "no corpus for \(target)")
        for file in saved {
            let input = try [UInt8](Data(contentsOf: file))
            let violation = property.check(input)
            #expect(violation == nil, "\(file.lastPathComponent) of \(target): \(violation ?? "")")
        }
    }

    /// The build script, the properties and the saved inputs name the same targets.
    @Test func everyTargetHasAPropertyAndEveryPropertyATarget() throws {
        let script = Self.fuzzDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/build-fuzz-target.sh")
        let process = Process()
        process.executableURL = script
        process.arguments = ["--list"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let listed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(Set(listed.split(separator: "\n").map(String.init)) == Set(Self.properties.keys))
        for kind in ["Corpus", "Regressions"] {
            let directory = Self.fuzzDirectory.appendingPathComponent(kind)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            #expect(Set(names).isSubset(of: Set(Self.properties.keys)), "\(kind) has \(names)")
        }
    }
}
