import Foundation
import LibBase
import Synchronization

/// What `GET /readyz` says: whether this instance should get requests now.
/// Not while it drains; otherwise as the database check says: one write
/// check at a time, on a connection of its own, its verdict kept for a
/// quarter of a second so that however often a balancer probes, the
/// database sees at most four checks a second; a check that hangs (a
/// database host gone silent) is answered "not ready" after a second.
final class ReadinessProbe: Sendable {
    enum Verdict: Equatable, Sendable {
        case ready
        case notReady(String)
    }

    static let freshFor = 0.25
    static let patience = 1.0

    private let check: DatabaseWriteCheck
    private let isDraining: @Sendable () -> Bool
    private let state = Mutex(State())

    private struct State {
        var last: Verdict?
        var checkedAt = 0.0
        /// Left when the running check ends.
        var running: DispatchGroup?
    }

    init(check: DatabaseWriteCheck, isDraining: @escaping @Sendable () -> Bool) {
        self.check = check
        self.isDraining = isDraining
    }

    func verdict() -> Verdict {
        if isDraining() { return .notReady("draining") }
        let now = MonotonicClock.now()
        let (kept, running, starts): (Verdict?, DispatchGroup?, Bool) = state.withLock { state in
            if let last = state.last, now - state.checkedAt < Self.freshFor { return (last, nil, false) }
            if let running = state.running { return (nil, running, false) }
            let group = DispatchGroup()
            group.enter()
            state.running = group
            return (nil, group, true)
        }
        if let kept { return kept }
        guard let running else { return .notReady("database check did not run") }
        if starts {
            let thread = Thread { [self] in
                let verdict = check.run()
                state.withLock { state in
                    state.last = verdict
                    state.checkedAt = MonotonicClock.now()
                    state.running = nil
                }
                running.leave()
            }
            thread.start()
        }
        guard running.wait(timeout: .now() + Self.patience) == .success else {
            return .notReady("database check did not answer within \(Int(Self.patience)) s")
        }
        return state.withLock { $0.last } ?? .notReady("database check did not run")
    }
}

/// A cheap proof that the database takes writes, on a connection of its
/// own (never one a request waits for): on SQLite, a table created in a
/// write transaction and rolled back; on PostgreSQL, that the server is
/// reachable and not a standby in recovery. Run by one thread at a time.
final class DatabaseWriteCheck: @unchecked Sendable {
    // @unchecked: `connection` is only touched by `run`, which `ReadinessProbe` runs one at a time.
    private let location: String
    private var connection: (any SQLConnection)?

    init(location: String) {
        self.location = location
    }

    private struct RolledBack: Error {}

    func run() -> ReadinessProbe.Verdict {
        do {
            let db = try connection ?? open()
            connection = db
            switch db {
            case let postgres as PostgresConnection:
                if try postgres.isStandby() { return .notReady("database is a standby (read-only)") }
            default:
                do {
                    try db.transaction {
                        try db.runScript("CREATE TABLE readiness_check (written INTEGER)")
                        throw RolledBack()
                    }
                } catch is RolledBack {}
            }
            return .ready
        } catch {
            return .notReady("database unreachable: \(Self.reason(error))")
        }
    }

    private func open() throws -> any SQLConnection {
        if PostgresLocation.isPostgres(location) { return try PostgresConnection(uri: location) }
        return try SQLiteConnection(path: location)
    }

    private static func reason(_ error: any Error) -> String {
        String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
