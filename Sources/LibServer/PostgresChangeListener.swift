import CPostgres
import Foundation

/// The one PostgreSQL connection an instance keeps to hear that another
/// instance committed a change (`LISTEN`; writers `pg_notify` in their
/// transaction, delivered at commit). It posts a change notice, and the
/// waiting feed requests check the feed. It sleeps in poll() with no
/// timeout; only while the database is unreachable does it wake to
/// reconnect (every second).
enum PostgresChangeListener {
    static func start(uri: String, notices: ChangeNotices) {
        Thread.detachNewThread { listen(uri: uri, notices: notices) }
    }

    private static func listen(uri: String, notices: ChangeNotices) {
        while true {
            if let connection = PQconnectdb(PostgresLocation.withConnectTimeout(uri)) {
                if PQstatus(connection) == CONNECTION_OK, subscribe(connection) {
                    // Changes committed while it was not listening are checked for now.
                    notices.post()
                    receive(on: connection, notices: notices)
                }
                PQfinish(connection)
            }
            sleep(1)
        }
    }

    private static func subscribe(_ connection: OpaquePointer) -> Bool {
        guard let result = PQexec(connection, "LISTEN \(ChangeLog.notifyChannel)") else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK
    }

    /// Until the connection fails.
    private static func receive(on connection: OpaquePointer, notices: ChangeNotices) {
        let socket = PQsocket(connection)
        guard socket >= 0 else { return }
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, -1)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0, PQconsumeInput(connection) == 1 else { return }
            var heard = false
            while let notice = PQnotifies(connection) {
                PQfreemem(notice)
                heard = true
            }
            if heard { notices.post() }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }
}
