import Foundation

/// PostgreSQL 15 clusters on 127.0.0.1 in streaming replication, on one
/// machine: node 0 starts as the primary, the others are standbys made with
/// `pg_basebackup -R`. A failover is done as an operator (or Patroni) does
/// it: the primary is killed (SIGKILL, the postmaster and every backend at
/// once, as a machine dying), the most advanced standby promoted, the other
/// standbys re-pointed at it, and the dead node rebuilt as a standby.
/// `settings` are postgresql.conf lines (docs/DEPLOY.md's recipe).
public final class ReplicatedPostgres: @unchecked Sendable {
    public struct Node: Sendable {
        public let name: String
        public let port: Int
        let data: String
    }

    public let nodes: [Node]
    public private(set) var primary = 0
    /// The node killed by the last failover, not yet rebuilt.
    public private(set) var dead: Int?
    private let reservations: [LoopbackPortReservation]
    private let directory: TemporaryDirectory

    /// A libpq connection string naming every node, for the read-write one.
    public var connectionString: String {
        "host=\(nodes.map { _ in "127.0.0.1" }.joined(separator: ",")) port=\(nodes.map { String($0.port) }.joined(separator: ","))"
            + " user=lib dbname=postgres target_session_attrs=read-write"
    }

    public func uri(_ node: Int) -> String { "postgresql://lib@127.0.0.1:\(nodes[node].port)/postgres" }

    public init(nodes count: Int = 3, settings: String) throws {
        let directory = try TemporaryDirectory("lib-test-replicated")
        try PostgresProgram.giveToOwner(directory)
        let reservations = try (0..<count).map { _ in try LoopbackPortReservation() }
        nodes = (0..<count).map { Node(name: "node\($0)", port: reservations[$0].port, data: directory.file("node\($0)")) }
        self.directory = directory
        self.reservations = reservations
        let initialized = try run("initdb", ["-D", nodes[0].data, "-U", "lib", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
        guard initialized.status == 0 else { throw PostgresClusterError.failed("\(initialized)") }
        // The recipe's settings, then the rig's own: a process dies here, never the machine, so fsync buys nothing.
        let conf = settings + "\nlisten_addresses = '127.0.0.1'\nfsync = off\nmax_connections = 200\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: nodes[0].data + "/postgresql.conf"))
        handle.seekToEndOfFile()
        handle.write(Data(conf.utf8))
        try handle.close()
        try start(0)
        for node in 1..<count { try makeStandby(node, of: 0) }
    }

    deinit {
        for node in nodes.indices { _ = try? run("pg_ctl", ["-D", nodes[node].data, "-m", "immediate", "stop"]) }
    }

    public func start(_ node: Int) throws {
        let options = "-p \(nodes[node].port) -k \(directory.path)"
        let started = try run("pg_ctl", ["-D", nodes[node].data, "-l", directory.file("\(nodes[node].name).log"), "-w", "-t", "60", "-o", options, "start"])
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: directory.file("\(nodes[node].name).log"), encoding: .utf8)) ?? ""
            throw PostgresClusterError.failed("\(started)\n--- log\n\(log)")
        }
    }

    /// A fresh copy of the primary's data, started as its standby.
    public func makeStandby(_ node: Int, of source: Int) throws {
        _ = try? FileManager.default.removeItem(atPath: nodes[node].data)
        let conninfo = "host=127.0.0.1 port=\(nodes[source].port) user=lib application_name=\(nodes[node].name)"
        let copied = try run("pg_basebackup", ["-d", conninfo, "-D", nodes[node].data, "-R", "-X", "stream", "--no-sync", "-c", "fast"])
        guard copied.status == 0 else { throw PostgresClusterError.failed("\(copied)") }
        try start(node)
    }

    /// Stops (SIGSTOP) the primary's WAL senders: the standbys fall behind
    /// by whatever is committed from now on, as behind a slow network.
    /// Synchronous commits wait; asynchronous ones are acknowledged anyway.
    public func stopReplication() throws {
        for sender in try Self.children(of: postmasterPID()) where Self.commandLine(of: sender).contains("walsender") {
            kill(sender, SIGSTOP)
        }
    }

    /// SIGKILL to the primary's postmaster and all its processes at once.
    public func killPrimary() throws {
        let postmaster = try postmasterPID()
        let children = Self.children(of: postmaster)
        kill(postmaster, SIGKILL)
        for child in children { kill(child, SIGKILL) }
    }

    /// Promotes the standby that received the most WAL, re-points the other
    /// standbys at it and rebuilds the dead primary as its standby. Returns
    /// the promoted node.
    @discardableResult
    public func failOver(rebuildingDead: Bool = true) throws -> Int {
        let dead = primary
        let standbys = nodes.indices.filter { $0 != dead }
        let received = try standbys.map { node -> (Int, String) in
            (node, try query(node, "SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::bigint"))
        }
        let chosen = received.max { (Int64($0.1) ?? 0) < (Int64($1.1) ?? 0) }!.0
        let promoted = try run("pg_ctl", ["-D", nodes[chosen].data, "-w", "-t", "60", "promote"])
        guard promoted.status == 0 else { throw PostgresClusterError.failed("\(promoted)") }
        primary = chosen
        for node in standbys where node != chosen {
            let conninfo = "host=127.0.0.1 port=\(nodes[chosen].port) user=lib application_name=\(nodes[node].name)"
            _ = try query(node, "ALTER SYSTEM SET primary_conninfo = '\(conninfo)'")
            _ = try query(node, "SELECT pg_reload_conf()")
        }
        self.dead = dead
        if rebuildingDead { try rebuildDead() }
        return chosen
    }

    /// The node the last failover killed, made again as a standby of the primary.
    public func rebuildDead() throws {
        guard let dead else { return }
        try makeStandby(dead, of: primary)
        self.dead = nil
    }

    /// One value (or rows joined by newlines, columns by '|') from `sql` on a node.
    public func query(_ node: Int, _ sql: String) throws -> String {
        try TestDatabase.query(uri(node), sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func run(_ program: String, _ arguments: [String]) throws -> CommandResult {
        try PostgresProgram.run(program, arguments, logIn: directory)
    }

    private func postmasterPID() throws -> pid_t {
        let pidText = try String(contentsOfFile: nodes[primary].data + "/postmaster.pid", encoding: .utf8)
        guard let postmaster = pid_t(pidText.split(separator: "\n").first ?? "") else { throw PostgresClusterError.failed("no postmaster pid") }
        return postmaster
    }

    private static func commandLine(of pid: pid_t) -> String {
        (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
    }

    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent
        }
    }
}
