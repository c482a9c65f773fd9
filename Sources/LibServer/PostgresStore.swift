/// `--db postgresql://USER@HOST:PORT/DB`: a libpq connection URI.
enum PostgresLocation {
    static func isURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The URI without a password, for messages.
    static func redacted(_ uri: String) -> String {
        guard let scheme = uri.range(of: "://"), let at = uri[scheme.upperBound...].firstIndex(of: "@") else { return uri }
        let credentials = uri[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return uri }
        return String(uri[..<colon]) + ":***" + String(uri[at...])
    }
}

/// The scale-out store: the same tables on PostgreSQL, shared by every
/// server pointed at the database.
enum PostgresStore {
    static func open(_ uri: String) throws -> ServerStore {
        let first = try PostgresConnection(uri: uri)
        try ServerMigrator(for: .postgresql).migrate(first, location: PostgresLocation.redacted(uri))
        var others: [any SQLConnection] = []
        for _ in 1..<ServerDatabase.poolSize { others.append(try PostgresConnection(uri: uri)) }
        return ServerStore(first: first, others: others)
    }
}
