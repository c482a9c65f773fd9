import Foundation

/// A fresh directory under the system's temporary directory, removed when the
/// value is released unless `LIB_KEEP_TEST_DIRS` is set (for post-mortems).
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(_ prefix: String = "lib-test") throws {
        let base = FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        // 0700 whatever the umask: a test that clears the umask runs beside
        // others, and lib refuses a LIB_HOME that other users can change.
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Every file under the directory, relative to it, for failure messages.
    public func listing() -> String {
        let names = (FileManager.default.subpaths(atPath: path) ?? []).sorted()
        return names.joined(separator: "\n")
    }

    deinit {
        if ProcessInfo.processInfo.environment["LIB_KEEP_TEST_DIRS"] == nil {
            try? FileManager.default.removeItem(at: url)
        }
    }
}
