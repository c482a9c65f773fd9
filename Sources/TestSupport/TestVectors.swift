import Foundation

/// The test vectors both sides of a rule must pass (`Tests/Vectors`).
public enum TestVectors {
    public static func text(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Tests/Vectors/\(name)"), encoding: .utf8)
    }
}
