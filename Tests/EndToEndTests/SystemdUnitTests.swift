import Foundation
import Testing
import TestSupport

/// contrib/systemd's user units, installed by `make install-units` the way
/// `make install` does, and checked by systemd itself.
@Suite struct SystemdUnitTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let units = ["lib-push.service", "lib-push-once.service", "lib-push.timer"]
    static let analyze = "/usr/bin/systemd-analyze"

    /// The man page's unit example is the packaged unit's line (the Debian
    /// package installs with PREFIX /usr), and FILES names only what lib makes.
    @Test func theManPageAgreesWithThePackagedUnits() throws {
        let manual = try String(contentsOfFile: Self.repository + "/man/lib.1", encoding: .utf8)
        for unit in ["lib-push-once.service", "lib-push.service"] {
            let text = try String(contentsOfFile: Self.repository + "/contrib/systemd/" + unit, encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }, "\(unit)")
            let packaged = line.replacingOccurrences(of: "/usr/local/bin/", with: "/usr/bin/")
            // groff escapes a hyphen as \-.
            #expect(manual.contains(packaged.replacingOccurrences(of: "-", with: "\\-")), "\(unit): \(packaged)")
        }
        #expect(!manual.contains("local/state") && !manual.contains("$LIB_HOME/state"), "FILES names a directory lib never makes")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: analyze), "needs systemd-analyze (systemd)"))
    func installedUnitsPassSystemdAnalyzeVerify() throws {
        let scratch = try TemporaryDirectory("lib-units")
        let prefix = scratch.file("prefix")
        let install = try CommandRunner.run("/usr/bin/make", ["-C", Self.repository, "--no-print-directory", "install-units", "PREFIX=\(prefix)"])
        try #require(install.status == 0, "\(install)")
        // The units name $(PREFIX)/bin/lib; systemd-analyze checks that it is an executable.
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: prefix + "/bin/lib", withDestinationPath: BuiltProducts.path("lib"))

        let directory = prefix + "/lib/systemd/user"
        let service = try String(contentsOfFile: directory + "/lib-push.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=\(prefix)/bin/lib push --watch --all\n"), "\(service)")
        #expect(service.contains("\nRestart=on-failure\n"))
        let once = try String(contentsOfFile: directory + "/lib-push-once.service", encoding: .utf8)
        #expect(once.contains("\nExecStart=\(prefix)/bin/lib -q push --wait 60 --all\n"), "\(once)")
        #expect(once.contains("\nType=oneshot\n"))
        let timer = try String(contentsOfFile: directory + "/lib-push.timer", encoding: .utf8)
        #expect(timer.contains("\nOnUnitActiveSec=10min\n") && timer.contains("\nUnit=lib-push-once.service\n"))
        // Installed (or packaged), a unit says nothing of how it was installed.
        for text in [service, once, timer] { #expect(!text.contains("make install"), "\(text)") }

        // --user needs a runtime directory even to verify; a private one.
        let runtime = scratch.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let verify = try CommandRunner.run(Self.analyze, ["--user", "verify"] + Self.units.map { directory + "/" + $0 },
                                           environment: ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path, "PATH": "/usr/bin:/bin"])
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify)")

        // And it would catch a broken one: a unit naming a missing program.
        try service.replacingOccurrences(of: prefix + "/bin/lib ", with: prefix + "/bin/missing ")
            .write(toFile: directory + "/lib-push.service", atomically: true, encoding: .utf8)
        let broken = try CommandRunner.run(Self.analyze, ["--user", "verify", directory + "/lib-push.service"],
                                           environment: ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path, "PATH": "/usr/bin:/bin"])
        #expect(broken.status != 0, "\(broken)")
    }
}
