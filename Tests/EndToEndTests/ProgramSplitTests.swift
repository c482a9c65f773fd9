import Foundation
import Testing
import TestSupport

/// `lib` is a static executable that runs what the device can do alone and
/// replaces itself with `lib-online` (network and keyring) for the rest
/// (issue 14). Checked with strace: which programs run, which libraries open.
@Suite struct ProgramSplitTests {
    /// `strace -f` of `lib ARGS`: the result, every execve'd program, every library opened.
    struct Trace {
        let result: CommandResult
        let programs: [String]
        let libraries: [String]
    }

    func traced(_ lib: LibHarness, _ arguments: [String], executable: String = BuiltProducts.path("lib"), stdin: String? = nil) throws -> Trace {
        let log = lib.home.file("strace.log")
        let result = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-e", "trace=execve,openat", "-o", log, executable] + arguments,
                                           environment: lib.environment, stdin: stdin ?? "")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        func quoted(after call: String) -> [String] {
            lines.compactMap { line -> String? in
                guard let start = line.range(of: call + "(")?.upperBound else { return nil }
                let rest = line[start...]
                guard let open = rest.firstIndex(of: "\"") else { return nil }
                let tail = rest[rest.index(after: open)...]
                guard let close = tail.firstIndex(of: "\"") else { return nil }
                return line.contains("= -1") ? nil : String(tail[..<close])
            }
        }
        let libraries = lines.compactMap { line -> String? in
            guard line.contains("openat("), !line.contains("= -1"), let start = line.range(of: ", \"")?.upperBound,
                  let end = line[start...].firstIndex(of: "\"") else { return nil }
            let path = String(line[start..<end])
            return path.contains(".so") ? path : nil
        }
        return Trace(result: result, programs: quoted(after: "execve").map { ($0 as NSString).lastPathComponent },
                     libraries: libraries)
    }

    @Test func onDeviceCommandsRunInLibAloneAndLoadNoLibrary() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "copies:=7", "--push").status == 0, "a pushed write, for log and revert")
        for arguments in [["--version"], ["status"], ["status", "--porcelain"], ["get", "--offline", "books/b-7"],
                          ["log"], ["log", "books/b-7", "--offline"], ["revert", "books/b-7"], ["push", "-n"],
                          ["edit", "books/b-7", "copies:=9"], ["diff"], ["discard", "books/b-7"], ["new", "books", "title=X"],
                          ["restore", "--all", "--yes"], ["resolve"], ["switch"], ["help", "push"],
                          ["__complete", "paths", "books/"]] {
            let trace = try traced(lib, arguments)
            #expect(trace.result.status == 0, "\(trace.result)")
            #expect(trace.programs == ["lib"], "lib \(arguments.joined(separator: " ")) ran \(trace.programs)")
            #expect(trace.libraries.isEmpty, "lib \(arguments.joined(separator: " ")) opened \(trace.libraries)")
        }
    }

    @Test func networkCommandsContinueInLibOnlineInTheSameProcess() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let login = try traced(lib, ["login", server.baseURL, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n")
        #expect(login.result.status == 0, "\(login.result)")
        #expect(login.programs == ["lib", "lib-online"], "\(login.programs)")
        #expect(login.libraries.contains { $0.contains("libsecret") }, "the helper loads libsecret: \(login.libraries)")

        // An edit of a document this device has never seen fetches it: lib hands it over first.
        let edit = try traced(lib, ["edit", "books/b-3", "copies:=4"])
        #expect(edit.result.status == 0, "\(edit.result)")
        #expect(edit.programs == ["lib", "lib-online"], "\(edit.programs)")

        for arguments in [["get", "books/b-7"], ["push"], ["edit", "books/b-7", "copies:=2", "--push"], ["log", "books/b-7"]] {
            let trace = try traced(lib, arguments)
            #expect(trace.result.status == 0, "\(trace.result)")
            #expect(trace.programs == ["lib", "lib-online"], "lib \(arguments.joined(separator: " ")) ran \(trace.programs)")
            #expect(trace.libraries.contains { $0.contains("libcurl") }, "\(trace.libraries)")
        }
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"copies\":2") == true)
    }

    /// `make install` puts the helper in `PREFIX/libexec/lib`; without it,
    /// on-device commands still work and the others say what is missing.
    @Test func helperIsFoundInLibexecAndAMissingOneIsAClearError() throws {
        let prefix = try TemporaryDirectory("lib-prefix")
        let bin = prefix.file("bin"), libexec = prefix.file("libexec/lib")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: BuiltProducts.path("lib"), toPath: bin + "/lib")
        let lib = try LibHarness()

        let missing = try CommandRunner.run(bin + "/lib", ["push"], environment: lib.environment)
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("`lib push` needs lib-online"), "\(missing)")
        #expect(missing.stderr.contains(libexec + "/lib-online"), "\(missing)")
        #expect(try CommandRunner.run(bin + "/lib", ["status"], environment: lib.environment).status == 0)

        try FileManager.default.createDirectory(atPath: libexec, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: BuiltProducts.path("lib-online"), toPath: libexec + "/lib-online")
        let installed = try traced(lib, ["push"], executable: bin + "/lib")
        #expect(installed.result.status == 4, "not signed in: the helper ran \(installed.result)")
        #expect(installed.result.stderr.contains("not signed in"), "\(installed.result)")
        #expect(installed.programs == ["lib", "lib-online"])
    }
}

/// `make install PREFIX=…` (the same recipe, on the binaries under test)
/// installs a set that works from where it lands: lib finds its helper in
/// PREFIX/libexec, and the man page, completions, prompt snippets and
/// systemd units are where their tools look.
@Suite struct InstallTests {
    @Test func makeInstallIntoAFreshPrefixInstallsAWorkingSet() throws {
        let prefix = try TemporaryDirectory("lib-install")
        let make = try CommandRunner.run("/usr/bin/make", ["-C", repositoryRoot(), "--no-print-directory", "install-files",
                                                           "PREFIX=\(prefix.path)", "INSTALL_BIN=\(BuiltProducts.directory.path)"],
                                         timeout: 120)
        #expect(make.status == 0, "\(make)")
        for file in ["bin/lib", "bin/lib-server", "libexec/lib/lib-online", "share/man/man1/lib.1",
                     "share/bash-completion/completions/lib", "share/zsh/site-functions/_lib",
                     "share/fish/vendor_completions.d/lib.fish", "share/lib/prompt/lib-prompt.bash",
                     "share/lib/prompt/starship.toml", "lib/systemd/user/lib-push.service", "lib/systemd/user/lib-push.timer"] {
            #expect(FileManager.default.fileExists(atPath: prefix.file(file)), "\(file) is not installed")
        }
        let unit = try String(contentsOfFile: prefix.file("lib/systemd/user/lib-push.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix.path)/bin/lib push --watch --all"), "\(unit)")

        let server = try startDemoServer()
        let home = try LibHarness()
        func installed(_ arguments: String..., stdin: String = "") throws -> CommandResult {
            try CommandRunner.run(prefix.file("bin/lib"), arguments, environment: home.environment, stdin: stdin)
        }
        #expect(try installed("--version").stdout.hasPrefix("lib "))
        let login = try installed("login", server.baseURL, "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        #expect(try installed("edit", "books/b-7", "copies:=6").status == 0)
        let status = try installed("status", "--porcelain")
        #expect(status.status == 0 && status.stdout.contains("pending 1\n"), "\(status)")
        let push = try installed("push")
        #expect(push.status == 0, "\(push)")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"copies\":6") == true)
    }
}
