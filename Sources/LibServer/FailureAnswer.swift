import CSQLite
import Foundation
import LibHTTPServer
import LibStore

/// What a request that failed inside the server is answered with. The
/// answer never carries the failure itself (file paths, SQL, library
/// messages: a full disk's 500 named the database file, issue 23); the log
/// gets it, under an incident id the answer's detail names.
enum FailureAnswer {
    /// How long a client should wait before asking again while the database
    /// cannot be reached: PostgreSQL restarts and SQLite locks last seconds.
    static let retryAfterSeconds = 2

    /// The answer for `error`, after logging it with a new incident id:
    /// 503 with Retry-After when the database cannot be reached just now
    /// (it may be answered again at once, the server reconnects by itself),
    /// 500 otherwise.
    static func answer(for error: any Error, request: HTTPRequest, log: (String) -> Void) -> Problem {
        let incident = "i-" + Crypto.randomHex(bytes: 6)
        let unavailable = isDatabaseUnavailable(error)
        if isReadOnlyDatabase(error) {
            log("unavailable \(incident): \(request.method) \(request.path): the database is a read-only standby, no primary reachable: \(error)")
            return Problem(status: 503,
                           detail: "The library's database is read-only just now (a standby; no primary reachable, or a failover in progress): writes are refused; try again in \(retryAfterSeconds) s (incident \(incident))",
                           headers: [("Retry-After", String(retryAfterSeconds))])
        }
        log("\(unavailable ? "unavailable" : "error") \(incident): \(request.method) \(request.path): \(error)")
        if unavailable {
            return Problem(status: 503, detail: "The library's database cannot be reached just now; try again in \(retryAfterSeconds) s (incident \(incident))",
                           headers: [("Retry-After", String(retryAfterSeconds))])
        }
        return Problem(status: 500, detail: "The server failed (incident \(incident), in the server's log)")
    }

    /// A write that reached a PostgreSQL standby (25006, read_only_sql_transaction).
    static func isReadOnlyDatabase(_ error: any Error) -> Bool {
        (error as? PostgresError)?.sqlState == PostgresError.readOnly
    }

    /// A failure of the database's availability, not of the request:
    /// PostgreSQL gone, shutting down, starting up or out of resources;
    /// SQLite locked by another process, out of disk or failing I/O.
    static func isDatabaseUnavailable(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresError:
            if error.connectionLost || error.sqlState == PostgresError.readOnly { return true }
            guard let state = error.sqlState else { return false }
            // 08: connection exception; 53: insufficient resources (disk
            // full, too many connections); 57P01–57P03: shutdown, crash,
            // cannot connect now; 58: system error (I/O).
            return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") || state.hasPrefix("58")
        case let error as DatabaseError:
            return error.isBusy || error.isDiskFull || error.code == SQLITE_IOERR || error.code == SQLITE_CANTOPEN
        default:
            return false
        }
    }
}
