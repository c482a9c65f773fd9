import Foundation
import Synchronization

/// Whether the request that claimed an idempotency key is still alive. A
/// claim lives exactly as long as its holder, never for a fixed lease: a
/// retry after a `kill -9` of the server that held the key, or after a
/// database failover, goes through at once.
///
/// PostgreSQL: the holder keeps an advisory lock on the key, for the
/// request (a session lock, on the one connection the request uses from
/// its claim to its write) or for the batch's transaction. PostgreSQL lets
/// the lock go when the connection ends however it ends, and a promoted
/// standby has no locks at all, so a key whose lock can be taken has no
/// live holder, whatever its claim row says.
///
/// SQLite (one file, one machine): the claim names the process that made
/// it (boot, pid and the pid's start time, so a reused pid is not taken
/// for the dead one); a claim of a process that is gone has no holder.
/// In this process, the claims of requests still running are kept here.
enum KeyClaimHolder {
    enum Scope {
        /// From the claim until `letGo` (a v1 write: the claim commits on
        /// its own, the write follows in a second transaction).
        case request
        /// Until the claiming transaction ends (a batch claims and writes in one).
        case transaction
    }

    /// The claims of this process's requests in flight (SQLite).
    private static let running = Mutex<Set<String>>([])

    /// The SQL that takes a key's lock on PostgreSQL (true) unless a live
    /// holder has it (false), the lock's name being the SQL `name`
    /// (`lockNamePrefix` and the key). SQLite's writers are serialized by
    /// `BEGIN IMMEDIATE`: there, liveness is the claim's own (`isAbandoned`).
    static func tryHold(for scope: Scope, named name: String) -> String {
        let function = scope == .request ? "pg_try_advisory_lock" : "pg_try_advisory_xact_lock"
        return "\(function)(hashtextextended(\(name), 0))"
    }

    /// In the write's transaction of a request that claimed its key
    /// (`.request`): the key's lock passes to the transaction (on
    /// PostgreSQL a transaction lock taken on it, then the request's let
    /// go), so that it goes with the COMMIT, in the same round trip. Once
    /// the write's transaction has run, `letGo` has no lock left to let go.
    static func handOver(user: String, key: String, in db: any SQLConnection) throws {
        guard db.dialect == .postgresql else { return }
        try db.send("SELECT \(tryHold(for: .transaction, named: "?1::text"))", [.text(lockNamePrefix(user: user) + key)])
        try db.send("SELECT pg_advisory_unlock_all()", [])
    }

    /// A new claim id for a request; on SQLite it names this process and
    /// counts as running until `letGo`.
    static func newClaim(for scope: Scope, in db: any SQLConnection) -> String {
        let id = Crypto.randomHex(bytes: 8)
        guard db.dialect == .sqlite else { return id }
        let claim = id + " " + ProcessIdentity.current
        if scope == .request { running.withLock { _ = $0.insert(claim) } }
        return claim
    }

    /// Whether a claim found in the table (status 0) was left by a holder
    /// that is gone. On PostgreSQL, asked only with the key's lock held.
    static func isAbandoned(_ claim: String?, in dialect: SQLDialect) -> Bool {
        guard dialect == .sqlite, let claim else { return true }
        guard let space = claim.firstIndex(of: " ") else { return true }  // a claim from before holders were named
        let holder = String(claim[claim.index(after: space)...])
        if holder == ProcessIdentity.current { return !running.withLock { $0.contains(claim) } }
        return !ProcessIdentity.isAlive(holder)
    }

    /// The request is over: its key is free for the next claimant (its
    /// claim row, if any, is an answer by now, or released, or abandoned).
    /// On PostgreSQL this lets go every session lock of the connection the
    /// request used (only requests hold session locks), also those taken
    /// in a claim transaction that failed. `handedOver`: the request's
    /// write transaction ran, and took the lock with it (`handOver`).
    static func letGo(_ claim: String?, in db: any SQLConnection, handedOver: Bool = false) {
        switch db.dialect {
        case .postgresql: if !handedOver { _ = try? db.query("SELECT pg_advisory_unlock_all()") }
        case .sqlite: if let claim { running.withLock { _ = $0.remove(claim) } }
        }
    }

    /// A key's lock is named by this and the key.
    static func lockNamePrefix(user: String) -> String {
        "lib-server idempotency \(user)\n"  // a key is visible ASCII: no newline
    }
}

/// This process as a claim names it: `BOOT/PID/START`, START the pid's
/// start time in clock ticks since boot (/proc/PID/stat's 22nd field).
enum ProcessIdentity {
    static let current: String = identity(of: getpid()) ?? "unknown/\(getpid())/0"

    static func isAlive(_ identity: String) -> Bool {
        let parts = identity.split(separator: "/")
        guard parts.count == 3, let pid = pid_t(parts[1]) else { return false }
        return self.identity(of: pid) == identity
    }

    private static func identity(of pid: pid_t) -> String? {
        guard let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let commandEnd = stat.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: state is field 3, start time field 22.
        let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
        // A zombie (killed, not yet reaped) holds nothing any more.
        guard fields.count > 19, fields[0] != "Z" else { return nil }
        return "\(boot.trimmingCharacters(in: .whitespacesAndNewlines))/\(pid)/\(fields[19])"
    }
}
