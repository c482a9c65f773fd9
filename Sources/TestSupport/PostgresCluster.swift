import Foundation

/// A private PostgreSQL cluster of a test's own, on 127.0.0.1, which the
/// test may stop and start again under a running lib-server (what
/// scripts/with-postgres.sh does for a whole suite, here for one test).
/// Run as an unprivileged user when the test runs as root (PostgreSQL
/// refuses root), with setpriv: runuser's PAM session left the test waiting. Removed when released.
public final class PostgresCluster: @unchecked Sendable {
    public var port: Int { reservation.port }
    /// Held for the cluster's life, stopped or running (PostgreSQL binds
    /// with SO_REUSEADDR): nobody else takes the port while it is down.
    private let reservation: LoopbackPortReservation
    /// `postgresql://lib@127.0.0.1:PORT/postgres` (trust authentication).
    public var uri: String { "postgresql://lib@127.0.0.1:\(port)/postgres" }
    private let directory: TemporaryDirectory
    private static let bin = "/usr/lib/postgresql/15/bin"
    private static let owner = "lib-postgres"

    public init() throws {
        directory = try TemporaryDirectory("lib-test-postgres")
        reservation = try LoopbackPortReservation()
        if getuid() == 0 {
            if try CommandRunner.run("/usr/bin/id", [Self.owner]).status != 0 {
                _ = try CommandRunner.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", Self.owner])
            }
            _ = try CommandRunner.run("/bin/chown", [Self.owner, directory.path])
        }
        let initialized = try run("initdb", ["-D", directory.file("data"), "-U", "lib", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
        guard initialized.status == 0 else { throw PostgresClusterError.failed("\(initialized)") }
        try start()
    }

    deinit {
        _ = try? run("pg_ctl", ["-D", directory.file("data"), "-m", "immediate", "stop"])
    }

    /// Starts the cluster and waits until it accepts connections.
    public func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory.path) -c fsync=off -c synchronous_commit=off"
        let started = try run("pg_ctl", ["-D", directory.file("data"), "-l", directory.file("server.log"), "-w", "-t", "60", "-o", options, "start"])
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: directory.file("server.log"), encoding: .utf8)) ?? ""
            throw PostgresClusterError.failed("\(started)\n--- server.log\n\(log)")
        }
    }

    /// Stops the cluster (fast shutdown: every connection is closed).
    public func stop() throws {
        let stopped = try run("pg_ctl", ["-D", directory.file("data"), "-m", "fast", "-w", "stop"])
        guard stopped.status == 0 else { throw PostgresClusterError.failed("\(stopped)") }
    }

    /// Runs a PostgreSQL program, its output in the cluster's directory, and
    /// waits for it with waitpid: the server pg_ctl leaves running kept
    /// Foundation's Process from ever seeing the command end (it stayed a
    /// zombie, `isRunning` true), so this one spawns and reaps by itself.
    private func run(_ program: String, _ arguments: [String]) throws -> CommandResult {
        let log = directory.file("\(program).log")
        let command = (["\(Self.bin)/\(program)"] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
            + " >>'\(log)' 2>&1 </dev/null"
        let argv = (getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=\(Self.owner)", "--regid=\(Self.owner)", "--clear-groups"] : [])
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

public enum PostgresClusterError: Error {
    case failed(String)
}
