import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct AccountTests {
    @Test func severalAccountsOnOneServerAndAnother() throws {
        let one = try startDemoServer()
        let two = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: one)
        try lib.login("bob", to: one)
        let third = try lib.login("alice", to: two)
        #expect(third.stdout == "Signed in to 127.0.0.1:\(two.port) as alice (account alice@127.0.0.1:\(two.port))\n")

        let listing = try lib.lib("switch")
        #expect(listing.status == 0)
        #expect(listing.stdout.contains("* alice@127.0.0.1:\(two.port)"), "the last login is current\n\(listing)")
        #expect(listing.stdout.contains("  bob@127.0.0.1:\(one.port)"))

        let ambiguous = try lib.lib("switch", "alice")
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr == "lib: 'alice' matches several accounts: alice@127.0.0.1:\(one.port), alice@127.0.0.1:\(two.port); give more of the name\n")

        let switched = try lib.lib("switch", "b")
        #expect(switched.stdout == "Switched to bob@127.0.0.1:\(one.port).\n")
        #expect(try lib.lib("status", "--porcelain").stdout.hasPrefix("account bob@127.0.0.1:\(one.port)\n"))
        #expect(try lib.lib("-A", "alice@127.0.0.1:\(one.port)", "status", "--porcelain").stdout.hasPrefix("account alice@127.0.0.1:\(one.port)\n"))
        #expect(try lib.lib(["status", "--porcelain"], environment: ["LIB_ACCOUNT": "alice@127.0.0.1:\(two.port)"]).stdout
            .hasPrefix("account alice@127.0.0.1:\(two.port)\n"))
        let unknown = try lib.lib("-A", "carol", "status")
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("lib: No account matches 'carol' (signed in: "))
    }

    @Test func filesArePrivateAndTheTokenIsNowhereOnDisk() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let old = umask(0)
        defer { umask(old) }
        try lib.login("alice", to: server)
        let token = try keyringToken(server: server, user: "alice")
        #expect(token.hasPrefix("lbt_"))
        for file in lib.files() {
            let contents = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            #expect(contents.range(of: Data(token.utf8)) == nil, "the token is in \(file)")
            #expect(mode(file) == 0o600, "\(file) has mode \(String(mode(file), radix: 8))")
        }
        for directory in try FileManager.default.subpathsOfDirectory(atPath: lib.home.path).map({ lib.home.path + "/" + $0 })
        where isDirectory(directory) {
            #expect(mode(directory) == 0o700, "\(directory) has mode \(String(mode(directory), radix: 8))")
        }
    }

    @Test func wrongPasswordCreatesNothing() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let result = try lib.lib("login", server.baseURL, "--user", "alice", "--password-stdin", stdin: "nope\n")
        #expect(result.status == 4)
        #expect(result.stderr == "lib: Wrong user name or password for 127.0.0.1:\(server.port)\n")
        #expect(lib.files().isEmpty, "\(lib.home.listing())")
    }

    /// A password piped in without --password-stdin and no terminal to ask
    /// on (setsid: no controlling terminal): refused at once, naming the flag,
    /// instead of waiting on a terminal.
    @Test func aPipedPasswordWithoutTheFlagAndNoTerminalIsRefused() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let result = try CommandRunner.run("/usr/bin/setsid", ["-w", BuiltProducts.path("lib"), "login", server.baseURL, "--user", "carol"],
                                           environment: lib.environment, stdin: "carol-demo\n", timeout: 30)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("lib: standard input is not a terminal and there is no terminal to ask for the password on: "
                                        + "to read the password from standard input, add --password-stdin\n"), "\(result)")
        #expect(lib.files().isEmpty, "\(lib.home.listing())")
    }

    @Test func serverDownDuringLogin() throws {
        let server = try startDemoServer()
        let url = server.baseURL
        server.stop()
        let lib = try LibHarness()
        let result = try lib.lib("login", url, "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(result.status == 75)
        #expect(result.stderr == "lib: Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down.\n")
        #expect(lib.files().isEmpty, "\(lib.home.listing())")
    }

    @Test func noSessionBusFailsClosedBeforeAnythingIsCreated() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let emptyRuntime = try TemporaryDirectory()
        let result = try lib.lib(["login", server.baseURL, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n",
                                 environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(emptyRuntime.path)/no-bus",
                                               "XDG_RUNTIME_DIR": emptyRuntime.path])
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("no D-Bus session bus"), "\(result)")
        #expect(!result.stderr.lowercased().contains("invalid token"))
        #expect(lib.files().isEmpty, "\(lib.home.listing())")
        let sessions = try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath, "SELECT count(*) FROM sessions"])
        #expect(sessions.stdout == "0\n", "no token was made on the server")
    }

    @Test func lockedKeyringIsReportedAsLocked() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        // A keyring of its own, so that locking it does not disturb other tests.
        var env = lib.environment
        env["LIB_IN_TEST_SESSION"] = nil
        let script = """
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
                org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null
            printf 'alice-demo\\n' | "$1" login "$2" --user alice --password-stdin
            """
        let result = try CommandRunner.run(repositoryRoot() + "/scripts/with-test-session.sh",
            ["/bin/bash", "-c", script, "locked", BuiltProducts.path("lib"), server.baseURL], environment: env, timeout: 60)
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("locked"), "\(result)")
        #expect(lib.files().isEmpty, "\(lib.home.listing())")
    }

    @Test func logoutWithALockedKeyringChangesNothing() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        var env = lib.environment
        env["LIB_IN_TEST_SESSION"] = nil
        // Its own keyring: signed in while unlocked, then locked before logout.
        let script = """
            printf 'alice-demo\\n' | "$1" login "$2" --user alice --password-stdin >/dev/null || exit 90
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \\
                org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null
            "$1" logout
            """
        let result = try CommandRunner.run(repositoryRoot() + "/scripts/with-test-session.sh",
            ["/bin/bash", "-c", script, "locked", BuiltProducts.path("lib"), server.baseURL], environment: env, timeout: 60)
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("locked"), "\(result)")
        let status = try lib.lib("status", "--porcelain")
        #expect(status.stdout.hasPrefix("account alice@127.0.0.1:\(server.port)\n"), "the account is still there\n\(status)")
    }

    @Test func logoutRevokesTheTokenAndForgetsTheAccount() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        try lib.login("bob", to: server)
        let token = try keyringToken(server: server, user: "alice")
        let out = try lib.lib("logout", "alice")
        #expect(out.status == 0, "\(out)")
        #expect(out.stdout == "Signed out of alice@127.0.0.1:\(server.port).\nCurrent account: bob@127.0.0.1:\(server.port).\n")
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")]).status == 401)
        #expect(throws: (any Error).self) { try keyringToken(server: server, user: "alice") }
        #expect(!FileManager.default.fileExists(atPath: lib.home.path + "/data/accounts/alice@127.0.0.1:\(server.port)"))
        #expect(try lib.lib("switch").stdout == "* bob@127.0.0.1:\(server.port)  up to date\n")
    }

    /// Logout says what it deleted and what it kept (issue 49): the offline
    /// library's books, and the alias, which comes back at the same user's
    /// next sign-in (not another user's, and not over an alias taken since).
    @Test func logoutReportsTheOfflineLibraryAndKeepsTheAliasForTheNextSignIn() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let alice = "alice@127.0.0.1:\(server.port)"
        #expect(try lib.lib("login", server.baseURL, "--user", "alice", "--password-stdin", "--alias", "work", stdin: "alice-demo\n").status == 0)
        #expect(try lib.lib("pull").status == 0)
        let out = try lib.lib("logout")
        #expect(out.status == 0, "\(out)")
        #expect(out.stdout == """
            Signed out of \(alice).
            Deleted its offline library (20 books); `lib pull` brings it back after you sign in again.
            Kept the alias 'work': it comes back when you sign in again as \(alice).

            """)

        let again = try lib.login("alice", to: server)
        #expect(again.stdout.contains("Its alias 'work' is back, as before your last logout."), "\(again)")
        #expect(try lib.lib("-A", "work", "status", "--short").status == 0)
        let json = try lib.lib("--json", "logout")
        try JSONSchemaValidator.validate(json.stdout, against: "logout")
        let loggedOut = try JSONParser.parse(json.stdout)
        #expect(loggedOut["alias_kept"]?.stringValue == "work" && loggedOut["offline_books_deleted"]?.integerValue == 0, "\(json)")

        // Bob takes the alias meanwhile: alice's next sign-in leaves it to him.
        #expect(try lib.lib("login", server.baseURL, "--user", "bob", "--password-stdin", "--alias", "work", stdin: "bob-demo\n").status == 0)
        let third = try lib.lib("--json", "login", server.baseURL, "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        try JSONSchemaValidator.validate(third.stdout, against: "login")
        let signedIn = try JSONParser.parse(third.stdout)
        #expect(signedIn["alias"] == JSONValue.null && signedIn["alias_restored"]?.boolValue == false, "\(third)")
    }

    @Test func logoutOfflineSaysTheTokenIsStillValidThere() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        server.stop()
        let out = try lib.lib("logout")
        #expect(out.status == 0)
        #expect(out.stdout.hasPrefix("Signed out of "), "\(out)")
        #expect(out.stderr.contains("it is forgotten here but still valid there"), "a problem, on stderr: \(out)")
    }
}

/// The token lib stored for a demo user, read back from the keyring.
func keyringToken(server: ServerProcess, user: String) throws -> String {
    let id = try serverUserID(server, user)
    let result = try CommandRunner.run("/usr/bin/secret-tool", ["lookup", "server", "http://127.0.0.1:\(server.port)", "user-id", id])
    struct NotFound: Error {}
    guard result.status == 0, !result.stdout.isEmpty else { throw NotFound() }
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

func mode(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
}

func isDirectory(_ path: String) -> Bool {
    var flag: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
}

/// The repository's root, from this file's place in it.
func repositoryRoot(_ file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
