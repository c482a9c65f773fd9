import Foundation
import Testing
import TestSupport

/// The Debian packages (issue 28), built by packaging/build-debs.sh, the
/// script `make deb` runs, from the binaries under test, and unpacked with
/// `dpkg -x` into a temporary root: the programs work from there, each file
/// is where its tool looks, and systemd accepts the units.
@Suite struct PackageTests {
    /// Both packages, built once for the suite (about 15 s from a debug build).
    struct Built: Sendable {
        let directory: TemporaryDirectory
        let build: CommandResult
        let version: String
        let lib: String, libServer: String
        /// Each package unpacked with `dpkg -x` into a root of its own.
        let libRoot: String, serverRoot: String
    }

    struct BuildFailure: Error, Sendable { let message: String }

    static let built: Result<Built, BuildFailure> = {
        do {
            let directory = try TemporaryDirectory("lib-deb")
            // A static let outlives the suite: the packages go when the test process ends.
            atexit { if case .success(let built) = PackageTests.built { try? FileManager.default.removeItem(atPath: built.directory.path) } }
            let version = try CommandRunner.run(BuiltProducts.path("lib"), ["--version"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "lib ", with: "")
            // A debug build links the Swift toolchain's own libraries, which no Debian package provides.
            let build = try CommandRunner.run(repositoryRoot() + "/packaging/build-debs.sh",
                                              ["--ignore-missing-info", BuiltProducts.directory.path, directory.file("out")], timeout: 180)
            let lib = directory.file("out/lib_\(version)_amd64.deb"), libServer = directory.file("out/lib-server_\(version)_amd64.deb")
            let libRoot = directory.file("lib-root"), serverRoot = directory.file("server-root")
            for (deb, root) in [(lib, libRoot), (libServer, serverRoot)] where FileManager.default.fileExists(atPath: deb) {
                _ = try CommandRunner.run("/usr/bin/dpkg", ["-x", deb, root])
            }
            return .success(Built(directory: directory, build: build, version: version, lib: lib, libServer: libServer,
                                  libRoot: libRoot, serverRoot: serverRoot))
        } catch {
            return .failure(BuildFailure(message: "\(error)"))
        }
    }()

    func packages() throws -> Built {
        let built = try Self.built.get()
        try #require(built.build.status == 0, "\(built.build)")
        #expect(built.build.stdout == "built \(built.lib)\nbuilt \(built.libServer)\n", "\(built.build)")
        return built
    }

    /// An environment with nothing of the machine's own lib: only what the root holds.
    func environment(_ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in ["MANPATH", "XDG_DATA_DIRS", "LIB_HOME", "LIB_ACCOUNT"] { env[key] = nil }
        return env.merging(extra) { $1 }
    }

    func field(_ name: String, of deb: String) throws -> String {
        try CommandRunner.run("/usr/bin/dpkg-deb", ["--field", deb, name]).stdout.trimmingCharacters(in: .newlines)
    }

    @Test func packagesCarryTheProgramsVersionAndTheirLibrariesAsDepends() throws {
        let built = try packages()
        #expect(try CommandRunner.run(BuiltProducts.path("lib-server"), ["--version"]).stdout == "lib-server \(built.version)\n")
        for deb in [built.lib, built.libServer] {
            #expect(try field("Version", of: deb) == built.version)
        }
        // dpkg-shlibdeps' part first; then what lib-online loads with dlopen, or the package's own needs.
        let libDepends = try field("Depends", of: built.lib)
        #expect(libDepends.hasPrefix("libc6 (>= ") && libDepends.contains("libsqlite3-0 (>= "), "\(libDepends)")
        #expect(libDepends.hasSuffix(", libcurl4, libsecret-1-0, libglib2.0-0"), "\(libDepends)")
        let serverDepends = try field("Depends", of: built.libServer)
        for library in ["libc6 (>= ", "libpq5", "libsodium23 (>= ", "libsqlite3-0 (>= "] {
            #expect(serverDepends.contains(library), "\(serverDepends)")
        }
        #expect(try field("Conffiles", of: built.libServer).isEmpty, "conffiles are a file, not a field")
        let conffiles = try CommandRunner.run("/usr/bin/dpkg-deb", ["--info", built.libServer, "conffiles"])
        #expect(conffiles.stdout == "/etc/default/lib-server\n", "\(conffiles)")
    }

    /// The must-show: from the unpacked root, lib signs in, edits,
    /// pushes and reports, running lib-online from usr/libexec/lib, against
    /// the packaged lib-server started with the packaged configuration's
    /// flags and a user added the way lib-server(1) says.
    @Test func unpackedLibSignsInEditsAndPushesToTheUnpackedServer() throws {
        let built = try packages()
        let lib = built.libRoot + "/usr/bin/lib", server = built.serverRoot + "/usr/bin/lib-server"
        let data = try TemporaryDirectory("lib-deb-server")
        let database = data.file("library.sqlite")
        let add = try CommandRunner.run(server, ["user", "add", "alice", "--role", "librarian", "--db", database], stdin: "a long password\n")
        #expect(add.status == 0 && add.stdout == "Added librarian alice\n", "\(add)")

        // The unit's ExecStart, with the configuration file's values (the
        // database and ports moved into the test's own).
        // Held until the test ends: nobody else can take the port meanwhile.
        let reservation = try LoopbackPortReservation()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        let start = """
            . \(built.serverRoot)/etc/default/lib-server
            LIB_SERVER_LISTEN=127.0.0.1:\(port) LIB_SERVER_DB=\(database) LIB_SERVER_OPS_LISTEN=127.0.0.1:0
            exec \(server) --listen "$LIB_SERVER_LISTEN" --db "$LIB_SERVER_DB" --session-lifetime "$LIB_SERVER_SESSION_LIFETIME" \\
                --ops-listen "$LIB_SERVER_OPS_LISTEN" $LIB_SERVER_OPTIONS
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", start]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let first = String(decoding: output.fileHandleForReading.availableLine(timeout: 30), as: UTF8.self)
        try #require(first == "listening on http://127.0.0.1:\(port)", "\(first)")

        let home = try LibHarness()
        func unpacked(_ arguments: String..., stdin: String = "") throws -> CommandResult {
            try CommandRunner.run(lib, arguments, environment: home.environment, stdin: stdin)
        }
        // strace: the helper that runs is the one in the unpacked usr/libexec/lib.
        let trace = home.home.file("execve.log")
        let login = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-e", "trace=execve", "-o", trace, lib,
                                                              "login", "http://127.0.0.1:\(port)", "--user", "alice", "--password-stdin"],
                                          environment: home.environment, stdin: "a long password\n")
        #expect(login.status == 0, "\(login)")
        let executed = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(executed.contains("execve(\"\(built.libRoot)/usr/libexec/lib/lib-online\", "), "\(executed)")

        let create = try unpacked("edit", "books/p-1", "--create", "title=Packaged")
        #expect(create.status == 0, "\(create)")
        let status = try unpacked("status", "--porcelain")
        #expect(status.status == 0, "\(status)")
        let lines = status.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.prefix(6) == ["account alice@127.0.0.1:\(port)", "current true", "pending 1", "conflicts 0", "rejected 0", "set-aside 0"],
                "\(status)")
        #expect(lines.count == 9 && lines[6].hasPrefix("write pending create 0 ") && lines[6].hasSuffix(" books/p-1 id,title")
                && lines[7] == "" && lines[8] == "", "\(status)")
        let push = try unpacked("push")
        #expect(push.status == 0 && push.stdout == "Pushed 1 write to 127.0.0.1:\(port) as alice@127.0.0.1:\(port).\n", "\(push)")
        let after = try unpacked("status", "--porcelain")
        #expect(after.stdout.contains("\npending 0\n"), "\(after)")
        let stored = try CommandRunner.run("/usr/bin/sqlite3", [database, "SELECT json_extract(document, '$.title') FROM books WHERE id = 'p-1'"])
        #expect(stored.stdout == "Packaged\n", "\(stored)")

        // SIGTERM, as `systemctl stop` sends it: a clean exit.
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// Each file where bash-completion, zsh, fish and man look for it, as
    /// they would find it installed: their own search paths, moved into the root.
    @Test func completionsAndManPagesAreWhereTheirToolsLook() throws {
        let built = try packages()
        let root = built.libRoot, scratch = try TemporaryDirectory("lib-deb-shells")
        let env = environment(["HOME": scratch.path, "PATH": "\(root)/usr/bin:/usr/bin:/bin", "XDG_DATA_DIRS": "\(root)/usr/share"])

        let bash = try CommandRunner.run("/bin/bash", ["-c", ". /usr/share/bash-completion/bash_completion; __load_completion lib && complete -p lib"],
                                         environment: env)
        #expect(bash.status == 0 && bash.stdout == "complete -F _lib lib\n", "\(bash)")

        // Debian's zsh looks in /usr/share/zsh/vendor-completions; every directory it looks in, inside the root first.
        let zsh = try CommandRunner.run("/usr/bin/zsh", ["-fc", """
            [[ ${fpath[(Ie)/usr/share/zsh/vendor-completions]} -gt 0 ]] || exit 3
            fpath=(${fpath/#\\//\(root)/} $fpath); autoload -Uz compinit; compinit -u -D; print -r -- $_comps[lib]
            """], environment: env)
        #expect(zsh.status == 0 && zsh.stdout == "_lib\n", "\(zsh)")

        // fish loads it from XDG_DATA_DIRS' fish/vendor_completions.d; its candidates come from the unpacked lib.
        let fish = try CommandRunner.run("/usr/bin/fish", ["-c", "complete -C 'lib sta'"], environment: env)
        #expect(fish.status == 0 && fish.stdout.hasPrefix("status\t"), "\(fish)")

        // man finds a program's pages beside its bin directory (man-db's PATH to MANPATH rule).
        let man = try CommandRunner.run("/usr/bin/man", ["-w", "lib"], environment: env)
        #expect(man.stdout == "\(root)/usr/share/man/man1/lib.1.gz\n", "\(man)")
        let serverEnv = environment(["HOME": scratch.path, "PATH": "\(built.serverRoot)/usr/bin:/usr/bin:/bin"])
        let serverMan = try CommandRunner.run("/usr/bin/man", ["-w", "lib-server"], environment: serverEnv)
        #expect(serverMan.stdout == "\(built.serverRoot)/usr/share/man/man1/lib-server.1.gz\n", "\(serverMan)")
        for page in ["\(root)/usr/share/man/man1/lib.1.gz", "\(built.serverRoot)/usr/share/man/man1/lib-server.1.gz"] {
            let lint = try CommandRunner.run("/usr/bin/mandoc", ["-Tlint", page])
            #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint)")
        }
        for file in ["usr/libexec/lib/lib-online", "usr/share/lib/prompt/lib-prompt.bash", "usr/share/lib/schemas/status.schema.json",
                     "usr/share/doc/lib/README.md", "usr/share/doc/lib/copyright", "usr/lib/systemd/user/lib-push.timer",
                     "usr/share/doc/lib/CLI.md", "usr/share/doc/lib/KEYRING.md", "usr/share/doc/lib/NETWORK.md"] {
            #expect(FileManager.default.fileExists(atPath: "\(root)/\(file)"), "\(file) is not in the lib package")
        }
        for file in ["usr/share/doc/lib-server/DEPLOY.md", "usr/share/doc/lib-server/PROTOCOL.md", "usr/share/doc/lib-server/openapi.yaml"] {
            #expect(FileManager.default.fileExists(atPath: "\(built.serverRoot)/\(file)"), "\(file) is not in the lib-server package")
        }
    }

    /// What the man pages (and so `lib help`) name is there after the
    /// package is installed (issue 49: they named docs/json/, docs/JSON.md
    /// and contrib/, which exist only in lib's sources).
    @Test func everyPathTheManPagesNameIsInThePackages() throws {
        let built = try packages()
        for page in ["lib.1", "lib-server.1"] {
            let text = try String(contentsOfFile: repositoryRoot() + "/man/" + page, encoding: .utf8)
                .replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\&", with: "")
            #expect(!text.contains("docs/") && !text.contains("contrib/"), "\(page) names a path of the sources")
            let named = text.matches(of: /\/usr\/[A-Za-z0-9_.\/-]+/).map { String($0.output).trimmingCharacters(in: CharacterSet(charactersIn: ".,")) }
                .filter { !$0.hasPrefix("/usr/local") && !$0.hasPrefix("/usr/bin") }
            #expect(!named.isEmpty, "\(page) names no installed path")
            for path in Set(named) {
                let there = [built.libRoot, built.serverRoot].contains { FileManager.default.fileExists(atPath: $0 + path) }
                #expect(there, "\(page) names \(path), which neither package installs")
            }
        }
    }

    /// lib-server(1), as packaged, names every flag of --help and the version.
    @Test func serverManPageNamesEveryFlagOfHelpAndTheVersion() throws {
        let help = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--help"])
        #expect(help.status == 0)
        let page = try String(contentsOfFile: repositoryRoot() + "/man/lib-server.1", encoding: .utf8)
        let flags = Set(help.stdout.matches(of: /--[a-z][a-z-]*/).map { String($0.output) })
        #expect(flags.isSuperset(of: ["--db", "--listen", "--demo", "--role", "--verbose"]), "\(flags)")
        for flag in flags.sorted() {
            #expect(page.contains("\\fB" + flag.replacingOccurrences(of: "-", with: "\\-") + "\\fR"), "lib-server(1) does not name \(flag)")
        }
        let version = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--version"]).stdout.trimmingCharacters(in: .newlines)
        #expect(page.contains("\n.TH LIB-SERVER 1 ") && page.contains(" \"\(version)\" \"User Commands\"\n"), "the title line names \(version)")
    }

    static let analyze = "/usr/bin/systemd-analyze"

    /// systemd checks the units as the packages carry them; only their
    /// programs' paths are moved into the roots (systemd checks they exist).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: analyze), "needs systemd-analyze (systemd)"))
    func packagedUnitsPassSystemdAnalyze() throws {
        let built = try packages()
        let scratch = try TemporaryDirectory("lib-deb-units")
        let unitPath = built.serverRoot + "/lib/systemd/system/lib-server.service"
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        for line in ["ExecStart=/usr/bin/lib-server --listen ${LIB_SERVER_LISTEN} --db ${LIB_SERVER_DB} \\\n    --session-lifetime ${LIB_SERVER_SESSION_LIFETIME} --ops-listen ${LIB_SERVER_OPS_LISTEN} $LIB_SERVER_OPTIONS",
                     "EnvironmentFile=/etc/default/lib-server", "User=lib-server", "StateDirectory=lib-server",
                     "Restart=on-failure", "RestartPreventExitStatus=2", "ProtectSystem=strict", "NoNewPrivileges=yes",
                     "LimitNOFILE=65536"] {
            #expect(unit.contains("\n\(line)\n"), "lib-server.service lacks \(line)")
        }
        let config = try String(contentsOfFile: built.serverRoot + "/etc/default/lib-server", encoding: .utf8)
        for setting in ["LIB_SERVER_LISTEN=127.0.0.1:8080", "LIB_SERVER_OPS_LISTEN=127.0.0.1:9181", "LIB_SERVER_DB=/var/lib/lib-server/library.sqlite",
                        "LIB_SERVER_SESSION_LIFETIME=7776000", "LIB_SERVER_OPTIONS="] {
            #expect(config.contains("\n\(setting)\n"), "/etc/default/lib-server lacks \(setting)")
        }

        let system = scratch.file("lib-server.service")
        try unit.replacingOccurrences(of: "=/usr/bin/lib-server ", with: "=\(built.serverRoot)/usr/bin/lib-server ")
            .write(toFile: system, atomically: true, encoding: .utf8)
        // Documentation=man:lib-server(1): systemd-analyze asks man for the page.
        let env = environment(["MANPATH": built.serverRoot + "/usr/share/man", "PATH": "/usr/bin:/bin"])
        let verify = try CommandRunner.run(Self.analyze, ["verify", system], environment: env)
        #expect(verify.status == 0 && verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify)")
        // Exposure 1.2 on Debian 12's systemd (docs/DEPLOY.md); a dropped hardening option raises it.
        let security = try CommandRunner.run(Self.analyze, ["security", "--offline=yes", "--threshold=12", system], environment: env)
        #expect(security.status == 0, "\(security)")
        #expect(security.stdout.contains("Overall exposure level for lib-server.service: 1.2 OK"), "\(security)")

        let runtime = scratch.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var userUnits: [String] = []
        for name in ["lib-push.service", "lib-push-once.service", "lib-push.timer"] {
            let text = try String(contentsOfFile: built.libRoot + "/usr/lib/systemd/user/" + name, encoding: .utf8)
            #expect(!name.hasSuffix(".service") || text.contains("ExecStart=/usr/bin/lib "), "\(name): \(text)")
            try text.replacingOccurrences(of: "=/usr/bin/lib ", with: "=\(built.libRoot)/usr/bin/lib ")
                .write(toFile: scratch.file(name), atomically: true, encoding: .utf8)
            userUnits.append(scratch.file(name))
        }
        let user = try CommandRunner.run(Self.analyze, ["--user", "verify"] + userUnits,
                                         environment: ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path, "PATH": "/usr/bin:/bin"])
        #expect(user.status == 0 && user.stdout.isEmpty && user.stderr.isEmpty, "\(user)")

        // It would catch a broken unit: a misspelt setting.
        try unit.replacingOccurrences(of: "=/usr/bin/lib-server ", with: "=\(built.serverRoot)/usr/bin/lib-server ")
            .replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSystem=strikt")
            .write(toFile: system, atomically: true, encoding: .utf8)
        let broken = try CommandRunner.run(Self.analyze, ["verify", system], environment: env)
        #expect(broken.status != 0 || !broken.stderr.isEmpty, "\(broken)")
    }
}

private extension FileHandle {
    /// The first line (without its newline), or what came before the timeout.
    func availableLine(timeout: TimeInterval) -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var pfd = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 100) <= 0 { continue }
            var byte: UInt8 = 0
            if Glibc.read(fileDescriptor, &byte, 1) <= 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return bytes
    }
}
