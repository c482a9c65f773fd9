import Foundation

/// PostgreSQL's programs (initdb, pg_ctl, pg_basebackup …) as tests run
/// them: as the unprivileged `lib-postgres` when the tests run as root
/// (postgres refuses root), output appended to PROGRAM.log.
enum PostgresProgram {
    static let bin = "/usr/lib/postgresql/15/bin"
    static let owner = "lib-postgres"

    /// Makes `directory` the cluster owner's (when running as root).
    static func giveToOwner(_ directory: TemporaryDirectory) throws {
        guard getuid() == 0 else { return }
        if try CommandRunner.run("/usr/bin/id", [owner]).status != 0 {
            _ = try CommandRunner.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", owner])
        }
        _ = try CommandRunner.run("/bin/chown", [owner, directory.path])
    }

    /// Runs a PostgreSQL program, its output in `directory`, and waits for
    /// it with waitpid: the server pg_ctl leaves running kept Foundation's
    /// Process from ever seeing the command end (it stayed a zombie,
    /// `isRunning` true), so this one spawns and reaps by itself.
    static func run(_ program: String, _ arguments: [String], logIn directory: TemporaryDirectory) throws -> CommandResult {
        let log = directory.file("\(program).log")
        let command = (["\(bin)/\(program)"] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
            + " >>'\(log)' 2>&1 </dev/null"
        let argv = (getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=\(owner)", "--regid=\(owner)", "--clear-groups"] : [])
            + ["/bin/sh", "-c", command]
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        // Only standard input, output and error: PostgreSQL refuses to start
        // when the descriptors a test holds leave it too few of its own.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 && fcntl(fd, F_GETFD) >= 0 && fcntl(fd, F_GETFD) & FD_CLOEXEC == 0 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw PostgresClusterError.failed("posix_spawn \(argv[0]): \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return CommandResult(command: argv, status: exitStatus, stdout: output, stderr: "")
    }
}
