import Foundation

/// Where the built `lib` and `lib-server` binaries are: `LIB_BIN_DIR` when set
/// (the Makefile sets it), otherwise the directory of the running test bundle,
/// which SwiftPM puts beside the executables.
public enum BuiltProducts {
    public static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["LIB_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // swift test runs `<bin>/lib-packageTests.xctest`; the executables sit in `<bin>`.
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("lib-server").path),
              url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
        }
        return url
    }

    public static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }
}
