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

    public init() throws {
        directory = try TemporaryDirectory("lib-test-postgres")
        reservation = try LoopbackPortReservation()
        try PostgresProgram.giveToOwner(directory)
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

    private func run(_ program: String, _ arguments: [String]) throws -> CommandResult {
        try PostgresProgram.run(program, arguments, logIn: directory)
    }
}

public enum PostgresClusterError: Error {
    case failed(String)
}
