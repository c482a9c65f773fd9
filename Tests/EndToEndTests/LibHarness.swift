import Foundation
import LibJSON
import Testing
import TestSupport

/// One user's machine for an end-to-end test: its own LIB_HOME, the real
/// `lib` binary, and the session's real keyring (tests run inside
/// scripts/with-test-session.sh). Every command's result is recorded so that
/// a failing test can show what ran.
final class LibHarness: @unchecked Sendable {
    let home: TemporaryDirectory
    var extraEnvironment: [String: String] = [:]

    init() throws {
        home = try TemporaryDirectory("lib-e2e")
    }

    /// A harness over a home made elsewhere (e.g. an OfflineMachine's).
    init(home: TemporaryDirectory) {
        self.home = home
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["LIB_HOME"] = home.path
        env["LIB_ACCOUNT"] = nil
        env["NO_COLOR"] = nil
        for (key, value) in extraEnvironment { env[key] = value }
        return env
    }

    /// Runs `lib ARGS...` with standard input and returns what happened.
    @discardableResult
    func lib(_ arguments: String..., stdin: String? = nil, environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> CommandResult {
        try lib(arguments, stdin: stdin, environment: extra, timeout: timeout)
    }

    @discardableResult
    func lib(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> CommandResult {
        try CommandRunner.run(BuiltProducts.path("lib"), arguments,
                              environment: environment.merging(extra) { $1 }, stdin: stdin ?? "", timeout: timeout)
    }

    /// Runs `lib ARGS...` in a new, empty kernel session keyring: another
    /// login session (ssh, cron) where no token is cached, so the token
    /// comes from the Secret Service (or, with --headless, the persistent
    /// keyring) — as before the cache, for tests of a missing keyring.
    @discardableResult
    func libInAnotherSession(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
                             timeout: TimeInterval = 60) throws -> CommandResult {
        try CommandRunner.run(BuiltProducts.path("lib-keyring-check"), ["session", BuiltProducts.path("lib")] + arguments,
                              environment: environment.merging(extra) { $1 }, stdin: stdin ?? "", timeout: timeout)
    }

    /// Signs in as a demo user (password `NAME-demo`) and checks it worked.
    @discardableResult
    func login(_ user: String, to server: ServerProcess, sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
        let result = try lib("login", server.baseURL, "--user", user, "--password-stdin", stdin: "\(user)-demo\n")
        #expect(result.status == 0, "\(result)\n\(home.listing())", sourceLocation: sourceLocation)
        return result
    }

    /// Runs `lib ARGS` on a pseudo-terminal `columns` wide, made by
    /// script(1) from util-linux; stdout and stderr both arrive in `stdout`.
    func onTerminal(_ arguments: String, columns: Int = 120, environment extra: [String: String] = [:]) throws -> CommandResult {
        let command = "stty cols \(columns) 2>/dev/null; exec \(BuiltProducts.path("lib")) \(arguments)"
        return try CommandRunner.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment.merging(extra) { $1 })
    }

    /// The account name lib gives a demo user on this server.
    func account(_ user: String, on server: ServerProcess) -> String { "\(user)@\(server.host):\(server.port)" }

    /// Every regular file under LIB_HOME.
    func files() -> [String] {
        (FileManager.default.subpaths(atPath: home.path) ?? []).map { home.path + "/" + $0 }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

/// A lib-server with the demo data, its database in a directory it owns.
func startDemoServer(arguments: [String] = []) throws -> ServerProcess {
    let dir = try TemporaryDirectory("lib-e2e-server")
    return try ServerProcess(database: dir.file("server.sqlite"), extraArguments: arguments, owning: dir)
}

/// The server's history of a book, read from its database: who wrote each version.
func serverHistory(_ server: ServerProcess, book: String) throws -> [(version: Int, updatedBy: String, document: String?)] {
    let result = try CommandRunner.run("/usr/bin/sqlite3", ["-separator", "\t", server.databasePath,
        "SELECT version, updated_by, coalesce(document, '') FROM history WHERE book_id = '\(book)' ORDER BY version"])
    return result.stdout.split(separator: "\n").map { line in
        let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        return (Int(fields[0]) ?? -1, fields.count > 1 ? fields[1] : "", fields.count > 2 && !fields[2].isEmpty ? fields[2] : nil)
    }
}

/// The user id the server gave a user name.
func serverUserID(_ server: ServerProcess, _ user: String) throws -> String {
    try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath, "SELECT id FROM users WHERE username = '\(user)'"])
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
