import Foundation
import LibJSON
import Testing
import TestSupport

/// `lib doctor` against the real session: bus, keyring, store and server (issue 12).
@Suite struct DoctorTests {
    @Test func allIsWellInTheTestSession() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        let doctor = try lib.lib("doctor")
        #expect(doctor.status == 0, "\(doctor)")
        #expect(doctor.stdout.contains("ok       session-bus: found through DBUS_SESSION_BUS_ADDRESS"), "\(doctor)")
        #expect(doctor.stdout.contains("ok       secret-service: answers"), "\(doctor)")
        // Signed in just now: the token is in the kernel keyring's cache.
        #expect(doctor.stdout.contains("ok       token (\(account)): in the kernel keyring's cache (session keyring), 1"), "\(doctor)")
        #expect(doctor.stdout.contains(" left\n"), "\(doctor)")
        // In another session, from the Secret Service (and cached there from then on).
        let cold = try lib.libInAnotherSession(["doctor"])
        #expect(cold.stdout.contains("ok       token (\(account)): in the keyring (Secret Service), unlocked; now cached in the kernel keyring for 15 min\n"), "\(cold)")
        #expect(doctor.stdout.contains("ok       store (\(account)): ") && doctor.stdout.contains("quick_check ok"), "\(doctor)")
        #expect(doctor.stdout.contains("GET /v1/me answered 200 as alice"), "\(doctor)")
        #expect(doctor.stdout.contains("ok       clock (\(account)): within "), "\(doctor)")
        #expect(doctor.stdout.contains("ok       proxies: none"), "\(doctor)")
        #expect(!doctor.stdout.contains("problem"), "\(doctor)")

        let json = try lib.lib("doctor", "--json")
        #expect(json.status == 0, "\(json)")
        try JSONSchemaValidator.validate(json.stdout, against: "doctor")
        let checks = try JSONParser.parse(json.stdout)["checks"]?.arrayValue ?? []
        #expect(checks.contains { $0["check"] == "token" && $0["account"] == .string(account) && $0["status"] == "ok" })
    }

    /// Each account's offline library: how many books, when the last pull was.
    @Test func itSaysHowManyBooksAreCachedAndWhenTheLastPullWas() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        let before = try lib.lib("doctor")
        #expect(before.stdout.contains("ok       library (\(account)): no books cached; never pulled (`lib pull` keeps a copy of the whole library for offline reads)\n"), "\(before)")
        try lib.cache(["books/b-7"], from: server, as: "alice")
        let one = try lib.lib("doctor")
        #expect(one.stdout.contains("ok       library (\(account)): 1 book cached; never pulled (`lib pull`"), "\(one)")
        let pull = try lib.lib("pull")
        #expect(pull.status == 0, "\(pull)")
        let listed = try #require(pull.stdout.firstMatch(of: #/listed ([0-9,]+) books/#)?.output.1, "\(pull)")
        let after = try lib.lib(["doctor"], environment: ["TZ": "UTC"])
        #expect(after.status == 0, "\(after)")
        let line = try #require(after.stdout.split(separator: "\n").first { $0.contains("library (") }.map(String.init), "\(after)")
        #expect(line.wholeMatch(of: #/ok       library \(.*\): ([0-9,]+) books cached; last pull \d{4}-\d\d-\d\d \d\d:\d\d \(just now\)/#)?.output.1 == listed, "\(after)")
        let json = try lib.lib("doctor", "--json")
        try JSONSchemaValidator.validate(json.stdout, against: "doctor")
    }

    @Test func withoutABusItExitsFourAndNamesTheBus() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let emptyRuntime = try TemporaryDirectory()
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(emptyRuntime.path)/no-bus", "XDG_RUNTIME_DIR": emptyRuntime.path]
        let doctor = try lib.lib(["doctor"], environment: noBus)
        #expect(doctor.status == 4, "\(doctor)")
        #expect(doctor.stdout.contains("problem  session-bus: DBUS_SESSION_BUS_ADDRESS names unix:path=\(emptyRuntime.path)/no-bus"), "\(doctor)")
        #expect(doctor.stdout.contains("fix: "), "\(doctor)")

        // Nothing names a bus at all.
        var unset = lib.environment
        unset["DBUS_SESSION_BUS_ADDRESS"] = nil
        unset["XDG_RUNTIME_DIR"] = emptyRuntime.path
        let none = try CommandRunner.run(BuiltProducts.path("lib"), ["doctor", "--json"], environment: unset)
        if !FileManager.default.fileExists(atPath: "/run/user/\(getuid())/bus") {
            #expect(none.status == 4, "\(none)")
            #expect(none.stdout.contains("DBUS_SESSION_BUS_ADDRESS is unset and neither $XDG_RUNTIME_DIR/bus nor /run/user/\(getuid())/bus exists"), "\(none)")
            try JSONSchemaValidator.validate(none.stdout, against: "doctor")
        }
    }

    @Test func withTheKeyringLockedItExitsFourAndSaysLocked() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        // A keyring of its own, so that locking it does not disturb other tests.
        var env = lib.environment
        env["LIB_IN_TEST_SESSION"] = nil
        let script = """
            printf 'alice-demo\\n' | "$1" login "$2" --user alice --password-stdin >/dev/null || exit 9
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
                org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null
            "$3" session "$1" doctor
            echo "--- exit $?"
            "$1" doctor
            """
        // The first doctor in a session without a cached copy (lib-keyring-check session), the
        // second in the one whose kernel keyring has the copy login cached.
        let result = try CommandRunner.run(repositoryRoot() + "/scripts/with-test-session.sh",
            ["/bin/bash", "-c", script, "locked", BuiltProducts.path("lib"), server.baseURL, BuiltProducts.path("lib-keyring-check")],
            environment: env, timeout: 90)
        let parts = result.stdout.components(separatedBy: "--- exit 4\n")
        #expect(parts.count == 2, "the cold doctor exits 4: \(result)")
        #expect(parts[0].contains("problem  token (\(lib.account("alice", on: server))): the keyring is locked"), "\(result)")
        // A warm cache is used while the Secret Service is locked, and said so.
        #expect(parts.last?.contains("ok       token (\(lib.account("alice", on: server))): in the kernel keyring's cache") == true, "\(result)")
    }
}

/// The server's Date read with LibHTTP's IMF-fixdate parser, the one the
/// http-date fuzz target checks (doctor had its own, which trapped on a
/// year beyond Int32).
@Suite struct DoctorClockTests {
    @Test func aDateNoClockCanShowIsLeftOutNotACrash() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let port = UInt16(server.port)
        server.stop()
        let me = #"{"id":"u-1","username":"alice","role":"librarian"}"#
        let peer = try ScriptedPeer(port: port) { _, _ in
            .send(httpResponse(200, "OK", headers: ["Content-Type: application/json",
                                                    "Date: Sun, 06 Nov 99999999999 08:49:37 GMT"], body: me))
        }
        let doctor = try lib.lib("doctor")
        #expect(doctor.stdout.contains("GET /v1/me answered 200 as alice"), "\(doctor)")
        #expect(!doctor.stdout.contains("clock ("), "\(doctor)")
        #expect(!doctor.stderr.contains("Fatal error"), "\(doctor)")
        #expect(doctor.status == 0, "\(doctor)")
        _ = peer
    }
}
