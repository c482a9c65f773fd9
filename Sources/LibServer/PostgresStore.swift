import Foundation

/// `--db`: a libpq connection string, either a URI
/// (`postgresql://USER@HOST:PORT,HOST2:PORT2/DB?target_session_attrs=read-write`)
/// or keyword=value pairs (`host=a,b,c port=5432 dbname=library target_session_attrs=read-write`).
/// Several hosts: libpq tries each, and does again whenever a lost
/// connection is made again (a failover).
enum PostgresLocation {
    static func isPostgres(_ location: String) -> Bool {
        isURI(location) || isKeywordForm(location)
    }

    static func isURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// `host=…`, `dbname=…`, `service=…`: starts with one of libpq's
    /// keywords and an `=` (a file name that does is not a likely SQLite path).
    static func isKeywordForm(_ location: String) -> Bool {
        let keywords = ["host", "hostaddr", "port", "dbname", "user", "service", "target_session_attrs"]
        return keywords.contains { location.hasPrefix($0 + "=") }
    }

    /// The connection string with a connect timeout when it has none: a
    /// reconnection to a database host that has gone silent (a failover)
    /// would otherwise hold a request for the system's TCP timeout,
    /// minutes, instead of a 503. libpq applies it to each host in turn.
    static func withConnectTimeout(_ location: String) -> String {
        if location.contains("connect_timeout=") { return location }
        if isKeywordForm(location) { return location + " connect_timeout=5" }
        return location + (location.contains("?") ? "&" : "?") + "connect_timeout=5"
    }

    /// The connection string without a password, for messages.
    static func redacted(_ location: String) -> String {
        if isKeywordForm(location) {
            return location.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("password=") ? "password=***" : String($0) }.joined(separator: " ")
        }
        guard let scheme = location.range(of: "://"), let at = location[scheme.upperBound...].firstIndex(of: "@") else { return location }
        let credentials = location[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return location }
        return String(location[..<colon]) + ":***" + String(location[at...])
    }
}

/// The scale-out store: the same tables on PostgreSQL, shared by every
/// server pointed at the database.
enum PostgresStore {
    static func open(_ location: String) throws -> ServerStore {
        let first = try PostgresConnection(uri: location)
        if try first.isStandby() {
            // A standby replays the primary's schema; it cannot take a migration.
            FileHandle.standardError.write(Data("""
                lib-server: \(PostgresLocation.redacted(location)) is a standby (read-only, in recovery): \
                no migrations run; reads are served, writes are answered 503 until a primary is reachable\n
                """.utf8))
        } else {
            try ServerMigrator(for: .postgresql).migrate(first, location: PostgresLocation.redacted(location))
        }
        var others: [any SQLConnection] = []
        for _ in 1..<ServerDatabase.poolSize { others.append(try PostgresConnection(uri: location)) }
        return ServerStore(first: first, others: others)
    }
}
