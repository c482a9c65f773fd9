import Foundation

/// Where a test's lib-server keeps its data: an SQLite file in the test's
/// directory, or, when the suite runs under scripts/with-postgres.sh
/// (LIB_TEST_POSTGRES is set), a new database in that PostgreSQL cluster.
public enum TestDatabase {
    public static var postgresBase: String? { ProcessInfo.processInfo.environment["LIB_TEST_POSTGRES"] }
    public static var isPostgres: Bool { postgresBase != nil }

    /// A `--db` value for a new, empty database.
    public static func fresh(in directory: TemporaryDirectory, name: String = "server.sqlite") throws -> String {
        guard let base = postgresBase else { return directory.file(name) }
        let database = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased()
        let created = try CommandRunner.run("/usr/lib/postgresql/15/bin/psql",
                                            ["-q", "-v", "ON_ERROR_STOP=1", base, "-c", "CREATE DATABASE \(database)"])
        guard created.status == 0 else { throw TestDatabaseError.createFailed(created.stderr) }
        guard let slash = base.lastIndex(of: "/") else { throw TestDatabaseError.createFailed("bad URI \(base)") }
        return base[..<slash] + "/" + database
    }

    /// Runs one SQL statement against `location` and returns its rows as
    /// lines of `|`-separated columns, on whichever store it is.
    public static func query(_ location: String, _ sql: String) throws -> String {
        try run(location, sql).stdout
    }

    /// The one integer `sql` answers; a failed query, or any other answer,
    /// is an error that shows what the command printed.
    public static func integer(_ location: String, _ sql: String) throws -> Int {
        let result = try run(location, sql)
        guard result.status == 0, let value = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestDatabaseError.queryFailed(result.description)
        }
        return value
    }

    private static func run(_ location: String, _ sql: String) throws -> CommandResult {
        if location.hasPrefix("postgresql://") {
            return try CommandRunner.run("/usr/lib/postgresql/15/bin/psql", ["-qAt", location, "-c", sql])
        }
        return try CommandRunner.run("/usr/bin/sqlite3", [location, sql])
    }
}

public enum TestDatabaseError: Error {
    case createFailed(String)
    case queryFailed(String)
}
